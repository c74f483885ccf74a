// The command line: nccl-tests' flags and defaults, our long names, and refusals that name the
// flag to fix.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "collectives/settings.hpp"
#include "collectives/collective_test.hpp"
#include "core/error.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;

// What the collectives' command line gave (parse_measure_options on the default workload), as
// the fields the tests below read.
struct CliOptions {
  enum class Action { Sweep, Help, Version, List };
  Action action = Action::Sweep;
  std::vector<std::string> tests;
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::vector<std::string> arguments;
  SweepConfig sweep;
};

CliOptions parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"commsweep"};
  argv.insert(argv.end(), args.begin(), args.end());
  const MeasureOptions m = parse_measure_options(default_workload(), static_cast<int>(argv.size()), argv.data());
  CliOptions o;
  o.action = m.help ? CliOptions::Action::Help : m.version ? CliOptions::Action::Version
             : m.list ? CliOptions::Action::List : CliOptions::Action::Sweep;
  o.arguments = m.arguments;
  if (!m.measurement) return o;
  const auto& c = config_of<CollectiveSettings>(*m.measurement);
  o.tests = c.tests;
  o.sweep = c.sweep;
  o.backend = m.run.backend;
  o.json_path = m.run.json_path;
  return o;
}

std::string help_text() { return measure_help_text(default_workload()); }

TEST(Options, DefaultsAreNcclTestsDefaults) {
  const CliOptions o = parse({});
  EXPECT_EQ(o.action, CliOptions::Action::Sweep);
  EXPECT_EQ(o.tests, std::vector<std::string>{"all_reduce"});
  EXPECT_EQ(o.backend, BackendChoice::Auto);
  EXPECT_TRUE(o.json_path.empty());
  EXPECT_TRUE(o.arguments.empty());
  const SweepConfig& c = o.sweep;
  const SweepConfig defaults;
  EXPECT_EQ(c.min_bytes, 8u);
  EXPECT_EQ(c.max_bytes, 128u << 20);
  EXPECT_EQ(c.step_factor, 2u);
  EXPECT_EQ(c.iters, 20);
  EXPECT_EQ(c.warmup, 5);
  EXPECT_EQ(c.check, 1);
  EXPECT_EQ(c.types, std::vector<DataType>{DataType::Float32});
  EXPECT_EQ(c.ops, std::vector<RedOp>{RedOp::Sum});
  EXPECT_EQ(c.root, 0);
  EXPECT_FALSE(c.blocking);
  EXPECT_EQ(c.graph_launches, 0);
  EXPECT_EQ(c.average, Average::Mean);
  EXPECT_EQ(c.cycles, 1);
  EXPECT_EQ(c.timeout_s, 300);
  EXPECT_EQ(c.seed, defaults.seed);
  EXPECT_EQ(c.fault.kind, Fault::Kind::None);
}

TEST(Options, ShortNames) {
  const CliOptions o = parse({"-b", "1K", "-e", "1G", "-f", "4", "-n", "7", "-w", "2", "-c", "3",
                              "-d", "half", "-o", "max", "-r", "1", "-z", "1", "-G", "2", "-a",
                              "3", "-N", "0", "-T", "60"});
  const SweepConfig& c = o.sweep;
  EXPECT_EQ(c.min_bytes, 1024u);
  EXPECT_EQ(c.max_bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(c.step_factor, 4u);
  EXPECT_EQ(c.iters, 7);
  EXPECT_EQ(c.warmup, 2);
  EXPECT_EQ(c.check, 3);
  EXPECT_EQ(c.types, std::vector<DataType>{DataType::Float16});
  EXPECT_EQ(c.ops, std::vector<RedOp>{RedOp::Max});
  EXPECT_EQ(c.root, 1);
  EXPECT_TRUE(c.blocking);
  EXPECT_EQ(c.graph_launches, 2);
  EXPECT_EQ(c.average, Average::Max);
  EXPECT_EQ(c.cycles, 0);
  EXPECT_EQ(c.timeout_s, 60);
}

TEST(Options, LongNames) {
  const CliOptions o = parse({"--minbytes", "64", "--maxbytes=1M", "--stepfactor", "8", "--iters",
                              "9", "--warmup_iters", "0", "--check", "0", "--datatype", "bf16",
                              "--op", "avg", "--root", "2", "--blocking", "0", "--cudagraph", "0",
                              "--average", "0", "--run_cycles", "5", "--timeout", "30", "--backend",
                              "nccl", "--json", "out.json", "--seed", "42"});
  const SweepConfig& c = o.sweep;
  EXPECT_EQ(c.min_bytes, 64u);
  EXPECT_EQ(c.max_bytes, 1u << 20);
  EXPECT_EQ(c.step_factor, 8u);
  EXPECT_EQ(c.iters, 9);
  EXPECT_EQ(c.warmup, 0);
  EXPECT_EQ(c.check, 0);
  EXPECT_EQ(c.types, std::vector<DataType>{DataType::Bfloat16});
  EXPECT_EQ(c.ops, std::vector<RedOp>{RedOp::Avg});
  EXPECT_EQ(c.root, 2);
  EXPECT_EQ(c.average, Average::Rank0);
  EXPECT_EQ(c.cycles, 5);
  EXPECT_EQ(c.timeout_s, 30);
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(o.backend, BackendChoice::Nccl);
  EXPECT_EQ(o.json_path, "out.json");
}

TEST(Options, KeepsTheArgumentsForProvenance) {
  const CliOptions o = parse({"all_gather", "-b", "8"});
  EXPECT_EQ(o.arguments, (std::vector<std::string>{"all_gather", "-b", "8"}));
}

TEST(Options, StepBytesAloneMakesALinearSweep) {
  const CliOptions o = parse({"-b", "1M", "-e", "4M", "-i", "1M"});
  EXPECT_EQ(o.sweep.step_factor, 1u);
  EXPECT_EQ(o.sweep.step_bytes, 1u << 20);
  // -f 1 with one size needs no step.
  EXPECT_EQ(parse({"-b", "1M", "-e", "1M", "-f", "1"}).sweep.step_factor, 1u);
}

TEST(Options, TestNamesAndAliases) {
  EXPECT_EQ(parse({"reduce_scatter"}).tests, std::vector<std::string>{"reduce_scatter"});
  // nccl-tests' binary names and the unseparated spellings find the same tests.
  EXPECT_EQ(parse({"all_reduce_perf", "allgather", "AllToAll"}).tests,
            (std::vector<std::string>{"all_reduce", "all_gather", "alltoall"}));
  EXPECT_EQ(parse({"broadcast,reduce", "sendrecv"}).tests,
            (std::vector<std::string>{"broadcast", "reduce", "sendrecv"}));
}

// Every registered collective, in the registry's order (the first seven as always).
TEST(Options, AllExpandsToEveryRegisteredTest) {
  std::vector<std::string> registered;
  for (const auto* t : collective_tests()) registered.emplace_back(t->name);
  EXPECT_EQ(parse({"all"}).tests, registered);
  const std::vector<std::string> first(registered.begin(), registered.begin() + 7);
  EXPECT_EQ(first, (std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter",
                                             "alltoall", "broadcast", "reduce", "sendrecv"}));
}

TEST(Options, CommaListsOfTypesAndOperators) {
  const CliOptions o = parse({"-d", "float,bf16,int8", "-o", "sum,max,min"});
  EXPECT_EQ(o.sweep.types,
            (std::vector<DataType>{DataType::Float32, DataType::Bfloat16, DataType::Int8}));
  EXPECT_EQ(o.sweep.ops, (std::vector<RedOp>{RedOp::Sum, RedOp::Max, RedOp::Min}));
  EXPECT_EQ(parse({"-d", "all"}).sweep.types, all_data_types());
  EXPECT_EQ(parse({"-o", "all"}).sweep.ops, all_red_ops());
  // A quoted list with spaces after the commas (issue 28: "unknown type ' bf16'").
  EXPECT_EQ(parse({"-d", "float, bf16", "-o", "sum , max"}).sweep.types,
            (std::vector<DataType>{DataType::Float32, DataType::Bfloat16}));
  EXPECT_EQ(parse({"all_reduce, all_gather", "-e", "1K"}).tests, (std::vector<std::string>{"all_reduce", "all_gather"}));
}

// -b/-e as nccl-tests takes them, the IEC spellings too; GB refused (it is 10^9 in the tables).
TEST(Options, SizesArePowersOf1024) {
  EXPECT_EQ(parse({"-b", "1Ki", "-e", "2MiB"}).sweep.min_bytes, 1024u);
  EXPECT_EQ(parse({"-b", "1Ki", "-e", "2MiB"}).sweep.max_bytes, 2u << 20);
  EXPECT_TRUE(throws_usage([] { parse({"-e", "1GB"}); }, {"-e/--maxbytes: '1GB'", "did you mean '1G'"}));
}

// `commsweep help [CMD]` stands for `commsweep [CMD] --help`.
TEST(Options, HelpCommand) {
  const auto words = [](std::vector<const char*> argv) {
    argv.insert(argv.begin(), "commsweep");
    return help_arguments(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  };
  using Words = std::vector<std::string>;
  EXPECT_EQ(words({"help"}), (Words{"commsweep", "--help"}));
  EXPECT_EQ(words({"help", "compare"}), (Words{"commsweep", "compare", "--help"}));
  EXPECT_EQ(words({"help", "all_gather"}), (Words{"commsweep", "all_gather", "--help"}));
  EXPECT_EQ(words({"help", "ep"}), (Words{"commsweep", "ep", "--help"}));
  EXPECT_EQ(words({"help", "help"}), (Words{"commsweep", "--help"}));
  EXPECT_TRUE(throws_usage([&] { words({"help", "comapre"}); },
                           {"unknown command or test 'comapre' (did you mean 'compare'?)"}));
  EXPECT_TRUE(throws_usage([&] { words({"help", "compare", "x"}); }, {"help takes one command or test, not 'x'"}));
}

TEST(Options, Actions) {
  EXPECT_EQ(parse({"--help"}).action, CliOptions::Action::Help);
  EXPECT_EQ(parse({"-h"}).action, CliOptions::Action::Help);
  EXPECT_EQ(parse({"--version"}).action, CliOptions::Action::Version);
  EXPECT_EQ(parse({"list"}).action, CliOptions::Action::List);
  // --help wins over flags that would be refused in a sweep.
  EXPECT_EQ(parse({"--help", "-a", "7"}).action, CliOptions::Action::Help);
}

TEST(Options, FaultInjection) {
  const CliOptions o = parse({"--fault", "wrong-element:1"});
  EXPECT_EQ(o.sweep.fault.kind, Fault::Kind::WrongElement);
  EXPECT_EQ(o.sweep.fault.rank, 1);
  EXPECT_EQ(parse({"--fault", "never-join:3"}).sweep.fault.kind, Fault::Kind::NeverJoin);
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "explode:1"}); }, {"--fault", "explode"}));
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "never-join"}); }, {"--fault"}));
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "never-join:x"}); }, {"--fault", "'x'"}));
  EXPECT_EQ(parse({"--fault", "hang:2"}).sweep.fault.kind, Fault::Kind::Hang);
  EXPECT_EQ(parse({"--fault", "alloc:1"}).sweep.fault.kind, Fault::Kind::Alloc);
  EXPECT_EQ(parse({"--fault", "async-error:2"}).sweep.fault.kind, Fault::Kind::AsyncError);
  EXPECT_EQ(parse({"--fault", "alloc:1"}).sweep.fault.rank, 1);
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "hang"}); }, {"--fault", "hang:1"}));
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "alloc:99999999999999"}); },
                           {"--fault", "99999999999999"}));
}

TEST(OptionsRefused, MinBytesAboveMaxBytes) {
  EXPECT_TRUE(throws_usage([] { parse({"-b", "2M", "-e", "1M"}); },
                           {"-b/--minbytes", "-e/--maxbytes", "2M", "1M"}));
}

TEST(OptionsRefused, BadSizes) {
  EXPECT_TRUE(throws_usage([] { parse({"-b", "1X"}); }, {"-b/--minbytes", "'1X'"}));
  EXPECT_TRUE(throws_usage([] { parse({"-e", "lots"}); }, {"-e/--maxbytes"}));
  EXPECT_TRUE(throws_usage([] { parse({"-i", "1Q"}); }, {"-i/--stepbytes"}));
  EXPECT_TRUE(throws_usage([] { parse({"-f", "1", "-i", "0"}); }, {"-i/--stepbytes"}));
}

TEST(OptionsRefused, LinearSweepWithoutStep) {
  EXPECT_TRUE(throws_usage([] { parse({"-f", "1"}); }, {"-f/--stepfactor", "-i/--stepbytes"}));
  EXPECT_TRUE(throws_usage([] { parse({"-f", "0"}); }, {"-f/--stepfactor"}));
}

// Seen writing tests/fuzz/options_fuzz (which plans the sizes of what parses): a linear sweep
// of 1-byte steps up to 1T planned 2^40 sizes (gigabytes of size list, then a sweep of years)
// instead of saying no.
TEST(OptionsRefused, TooManySizes) {
  EXPECT_TRUE(throws_usage([] { parse({"-b", "0", "-e", "1T", "-f", "1", "-i", "1"}); },
                           {"-i/--stepbytes", "1099511627777 sizes", "100000"}));
  EXPECT_EQ(parse({"-b", "1", "-e", "100000", "-f", "1", "-i", "1"}).sweep.max_bytes, 100000u);
  EXPECT_TRUE(throws_usage([] { parse({"-b", "0", "-e", "100000", "-f", "1", "-i", "1"}); },
                           {"100001 sizes"}));
}

TEST(OptionsRefused, UnknownTypeOrOperator) {
  EXPECT_TRUE(throws_usage([] { parse({"-d", "float,quad"}); }, {"-d/--datatype", "'quad'"}));
  EXPECT_TRUE(throws_usage([] { parse({"-d", ","}); }, {"-d/--datatype"}));
  EXPECT_TRUE(throws_usage([] { parse({"-o", "xor"}); }, {"-o/--op", "'xor'"}));
  EXPECT_TRUE(throws_usage([] { parse({"-o", "none"}); }, {"-o/--op", "'none'"}));
}

TEST(OptionsRefused, NegativeOrMalformedCounts) {
  EXPECT_TRUE(throws_usage([] { parse({"--iters=-1"}); }, {"-n/--iters", "out of range"}));
  EXPECT_TRUE(throws_usage([] { parse({"-n-1"}); }, {"-n/--iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"-n", "0"}); }, {"-n/--iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"-n", "ten"}); }, {"-n/--iters", "'ten'"}));
  EXPECT_TRUE(throws_usage([] { parse({"-n", "20x"}); }, {"-n/--iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"-w", "-3"}); }, {"warmup_iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"-T", "0"}); }, {"-T/--timeout"}));
}

TEST(OptionsRefused, AverageModeOutOfRange) {
  EXPECT_TRUE(throws_usage([] { parse({"-a", "7"}); }, {"-a/--average", "7", "0 to 3"}));
  EXPECT_TRUE(throws_usage([] { parse({"-z", "2"}); }, {"-z/--blocking"}));
}

TEST(OptionsRefused, UnknownTestNamesTheKnownOnes) {
  EXPECT_TRUE(throws_usage([] { parse({"all_reduce", "allreduse"}); },
                           {"'allreduse'", "all_reduce", "sendrecv"}));
}

TEST(OptionsRefused, UnknownBackend) {
  EXPECT_TRUE(throws_usage([] { parse({"--backend", "bogus"}); }, {"--backend", "'bogus'"}));
}

TEST(OptionsRefused, CudaGraphsNeedTheNcclBackend) {
  EXPECT_TRUE(throws_usage([] { parse({"-G", "1", "--backend", "mpi"}); },
                           {"-G/--cudagraph", "mpi"}));
  EXPECT_EQ(parse({"-G", "1", "--backend", "nccl"}).sweep.graph_launches, 1);
}

TEST(OptionsRefused, UnknownFlagAndEmptyJsonPath) {
  EXPECT_TRUE(throws_usage([] { parse({"--bogus"}); }, {"bogus", "--help"}));
  EXPECT_TRUE(throws_usage([] { parse({"--json="}); }, {"--json"}));
  // No guessing of abbreviated long names: --max could be --maxbytes only by luck.
  EXPECT_TRUE(throws_usage([] { parse({"--max", "1M"}); }, {"max"}));
}

TEST(HelpText, ListsEveryTestAndTheBusbwFactors) {
  const std::string help = help_text();
  for (const char* word : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                           "reduce", "sendrecv", "--minbytes", "--backend", "2(n-1)/n",
                           "Exit codes"}) {
    EXPECT_NE(help.find(word), std::string::npos) << word;
  }
}

TEST(Options, TimerDefaultsToTheHostClockLikeNcclTests) {
  EXPECT_FALSE(parse({}).sweep.device_timer);
  EXPECT_FALSE(parse({"--timer", "host"}).sweep.device_timer);
  EXPECT_TRUE(parse({"--timer", "device"}).sweep.device_timer);
}

TEST(Options, TimerRefusals) {
  EXPECT_TRUE(throws_usage([] { parse({"--timer", "gpu"}); }, {"--timer", "gpu"}));
  EXPECT_TRUE(throws_usage([] { parse({"--timer", "device", "--backend", "mpi"}); },
                                    {"--timer device", "nccl"}));
}

TEST(Options, BuffersDefaultToColdLikeNcclTests) {
  EXPECT_EQ(parse({}).sweep.buffers, Buffers::Cold);
  EXPECT_EQ(parse({"--buffers", "cold"}).sweep.buffers, Buffers::Cold);
  EXPECT_EQ(parse({"--buffers", "warm", "--backend", "mpi"}).sweep.buffers, Buffers::Warm);
  EXPECT_TRUE(throws_usage([] { parse({"--buffers", "hot"}); }, {"--buffers", "hot", "cold or warm"}));
  EXPECT_NE(help_text().find("--buffers"), std::string::npos);
}

}  // namespace
}  // namespace commsweep

namespace {

// The sweep's --help lists its codes from the one table (core/exit_codes.hpp; the table itself:
// exit_codes_test.cpp), first that applies first.
TEST(ExitCodes, SweepHelpListsItsCodesFromTheTable) {
  const std::string help = commsweep::measure_help_text(commsweep::default_workload());
  for (const char* item : {"2 bad input", "3 call failed", "4 hang", "5 interrupted", "6 health FAIL",
                           "7 out of memory", "8 wrong data", "11 output not written", "10 slow", "else 0 ok"})
    EXPECT_NE(help.find(item), std::string::npos) << item;
  EXPECT_LT(help.find("8 wrong data"), help.find("5 interrupted"));  // the precedence
  // A sweep's since issue 45: a row below its expected busbw's FAIL floor (docs/expected.md).
  EXPECT_LT(help.find("6 health FAIL"), help.find("10 slow"));
}

}  // namespace

namespace commsweep {
namespace {

// Boost.Program_options expands placeholders such as %canonical_option% in its messages with
// the argument itself and never ends when the argument holds one (ep_options_fuzz found it):
// such an argument is refused before Boost sees it, naming its position and the token.
TEST(Options, PlaceholderTokensAreRefusedBeforeBoost) {
  EXPECT_TRUE(throws_usage([] { parse({"--%canonical_option%"}); },
                           {"argument 1 holds '%canonical_option%'", "(see --help)"}));
  EXPECT_TRUE(throws_usage([] { parse({"-b", "8", "--json", "a%value%b"}); }, {"argument 4 holds '%value%'"}));
  EXPECT_EQ(parse({"--json", "100%.json"}).json_path, "100%.json");  // a lone % is a character
}

}  // namespace
}  // namespace commsweep
