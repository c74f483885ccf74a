// `commsweep suite`: its flags, the shipped suites, and suite files refused with the file,
// line, sweep and key, by the same parsers as the sweep commands' flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/suite_command.hpp"
#include "collectives/collective_test.hpp"
#include "collectives/settings.hpp"
#include "ep/ep_config.hpp"
#include "ep/implementation.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;

using SuiteCliOptions = SuiteCommandLine;

SuiteCliOptions options(std::vector<std::string> args) {
  args.insert(args.begin(), {"commsweep", "suite"});
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_suite_command_line(static_cast<int>(argv.size()), argv.data());
}

// A suite as read (run/suite_file.hpp), each sweep as the fields the tests below read.
struct SuiteSweep {
  enum class Kind { Collective, Ep, Other };
  Kind kind = Kind::Other;
  std::string name;
  std::string where;
  std::vector<std::string> tests;
  SweepConfig collective;
  ep::EpConfig ep;
};
struct Suite {
  std::vector<SuiteSweep> sweeps;
};

Suite read(const std::string& text, const std::string& path = "s.yaml",
           const SuiteCliOptions& o = options({"s.yaml"})) {
  const SuiteSweeps read = read_suite(path, text, o.overrides);
  Suite out;
  for (const RunSweep& s : read.sweeps) {
    SuiteSweep v;
    v.name = s.name;
    v.where = s.where;
    if (s.measurement->what() == "ep") {
      v.kind = SuiteSweep::Kind::Ep;
      v.ep = config_of<ep::EpConfig>(*s.measurement);
    } else if (s.measurement->what() != "pairs") {
      v.kind = SuiteSweep::Kind::Collective;
      v.tests = config_of<CollectiveSettings>(*s.measurement).tests;
      v.collective = config_of<CollectiveSettings>(*s.measurement).sweep;
    }
    out.sweeps.push_back(std::move(v));
  }
  return out;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(SuiteOptions, Flags) {
  const SuiteCliOptions o = options({"x.yaml", "--backend", "mpi", "-T", "60", "-c", "0", "--json", "r.json"});
  EXPECT_EQ(o.path, "x.yaml");
  EXPECT_EQ(o.overrides.run.backend, BackendChoice::Mpi);
  EXPECT_EQ(o.overrides.run.timeout_s, 60);
  EXPECT_EQ(o.overrides.run_flags.count("timeout"), 1u);
  EXPECT_EQ(o.overrides.check, 0);
  EXPECT_EQ(options({"x.yaml"}).overrides.run_flags.count("timeout"), 0u);
  EXPECT_EQ(options({"x.yaml"}).overrides.run.timeout_s, 300);
  EXPECT_FALSE(options({"x.yaml"}).overrides.check);
  EXPECT_EQ(o.overrides.run.json_path, "r.json");
  EXPECT_TRUE(options({"--help"}).help);
  EXPECT_TRUE(throws_usage([] { options({}); }, {"one suite file"}));
  EXPECT_TRUE(throws_usage([] { options({"a.yaml", "b.yaml"}); }, {"one suite file", "2 given"}));
  EXPECT_TRUE(throws_usage([] { options({"a.yaml", "-T", "0"}); }, {"-T/--timeout"}));
  EXPECT_TRUE(throws_usage([] { options({"a.yaml", "-c", "x"}); }, {"-c/--check"}));
  EXPECT_TRUE(throws_usage([] { options({"a.yaml", "--backend", "gpu"}); }, {"--backend"}));
  EXPECT_TRUE(throws_usage([] { options({"a.yaml", "-b", "8"}); }, {"suite:"}));
}

TEST(SuiteOptions, TheShippedSuitesRead) {
  const std::string ci = std::string(COMMSWEEP_SUITES_DIR) + "/ci.yaml";
  const Suite s = read(file_text(ci), ci);
  ASSERT_EQ(s.sweeps.size(), 3u);
  EXPECT_EQ(s.sweeps[0].name, "collectives-small");
  EXPECT_EQ(s.sweeps[0].tests.size(), collective_tests().size());  // all
  EXPECT_EQ(s.sweeps[0].collective.max_bytes, 64u << 10);
  EXPECT_EQ(s.sweeps[1].collective.step_factor, 1u);
  EXPECT_EQ(s.sweeps[1].collective.step_bytes, 3u << 10);
  EXPECT_EQ(s.sweeps[1].collective.root, 1);
  EXPECT_EQ(s.sweeps[2].kind, SuiteSweep::Kind::Ep);
  EXPECT_EQ(s.sweeps[2].ep.tokens, (std::vector<int>{16, 64}));
  EXPECT_EQ(s.sweeps[2].ep.routings.size(), 2u);

  const std::string full = std::string(COMMSWEEP_SUITES_DIR) + "/default.yaml";
  const Suite d = read(file_text(full), full);
  ASSERT_EQ(d.sweeps.size(), 2u);
  std::vector<std::string> registered;  // `tests: all`: every collective of the registry
  for (const auto* t : collective_tests()) registered.emplace_back(t->name);
  EXPECT_EQ(d.sweeps[0].tests, registered);
  EXPECT_EQ(d.sweeps[0].collective.min_bytes, 8u);
  EXPECT_EQ(d.sweeps[0].collective.max_bytes, std::uint64_t{8} << 30);
  EXPECT_EQ(d.sweeps[1].ep.tokens, (std::vector<int>{128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(d.sweeps[1].ep.experts, std::vector<int>{256});
}

TEST(SuiteOptions, YamlAndJsonReadTheSame) {
  const Suite y = read(
      "- name: a\n  kind: collective\n  tests: all_reduce,broadcast\n  min_bytes: 1K\n"
      "  max_bytes: 1M\n  dtypes: [half, bf16]\n  ops: [max]\n  iters: 3\n  warmup: 0\n"
      "  blocking: true\n- name: b\n  kind: ep\n  tokens: 32\n  hidden: [128, 256]\n"
      "  experts: 16\n  topk: 4\n  skew: 2\n");
  const Suite j = read(
      R"([{"name": "a", "kind": "collective", "tests": ["all_reduce", "broadcast"],
           "min_bytes": "1K", "max_bytes": "1M", "dtypes": "half,bf16", "ops": "max",
           "iters": 3, "warmup": 0, "blocking": 1},
          {"name": "b", "kind": "ep", "tokens": [32], "hidden": "128,256", "experts": 16,
           "topk": 4, "skew": 2.0}])",
      "s.json");
  ASSERT_EQ(y.sweeps.size(), 2u);
  ASSERT_EQ(j.sweeps.size(), 2u);
  EXPECT_EQ(y.sweeps[0].tests, j.sweeps[0].tests);
  EXPECT_EQ(y.sweeps[0].collective.min_bytes, 1024u);
  EXPECT_EQ(y.sweeps[0].collective.max_bytes, j.sweeps[0].collective.max_bytes);
  EXPECT_EQ(y.sweeps[0].collective.types, j.sweeps[0].collective.types);
  EXPECT_EQ(y.sweeps[0].collective.types.size(), 2u);
  EXPECT_EQ(y.sweeps[0].collective.ops, j.sweeps[0].collective.ops);
  EXPECT_EQ(y.sweeps[0].collective.iters, 3);
  EXPECT_EQ(y.sweeps[0].collective.warmup, 0);
  EXPECT_TRUE(y.sweeps[0].collective.blocking);
  EXPECT_TRUE(j.sweeps[0].collective.blocking);
  EXPECT_EQ(y.sweeps[1].ep.hidden, (std::vector<int>{128, 256}));
  EXPECT_EQ(y.sweeps[1].ep.hidden, j.sweeps[1].ep.hidden);
  EXPECT_EQ(y.sweeps[1].ep.skew, 2.0);
  EXPECT_EQ(j.sweeps[1].ep.skew, 2.0);
}

TEST(SuiteOptions, SuiteWideFlagsReachEverySweep) {
  const Suite s = read("- kind: collective\n- kind: ep\n  experts: 16\n", "s.yaml",
                       options({"s.yaml", "-T", "42", "-c", "0"}));
  EXPECT_EQ(s.sweeps[0].collective.timeout_s, 42);
  EXPECT_EQ(s.sweeps[0].collective.check, 0);
  EXPECT_EQ(s.sweeps[0].tests, std::vector<std::string>{"all_reduce"});  // the CLI's default
  EXPECT_EQ(s.sweeps[0].name, "sweep 1");
  EXPECT_EQ(s.sweeps[1].ep.timeout_s, 42);
  EXPECT_FALSE(s.sweeps[1].ep.check);
}

TEST(SuiteOptions, AMappingWithSweepsAndADescription) {
  const Suite s = read("description: x\nsweeps:\n  - kind: collective\n");
  EXPECT_EQ(s.sweeps.size(), 1u);
  EXPECT_TRUE(throws_usage([] { read("descriptionn: x\nsweeps:\n  - kind: ep\n"); },
                           {"s.yaml:1:", "unknown key \"descriptionn\""}));
  EXPECT_TRUE(throws_usage([] { read("description: x\n"); }, {"s.yaml", "list of sweeps"}));
  EXPECT_TRUE(throws_usage([] { read("sweeps: []\n"); }, {"s.yaml:1:", "non-empty list"}));
  EXPECT_TRUE(throws_usage([] { read("just text\n"); }, {"list of sweeps"}));
}

// Issue 28: what surprised a new user. A plain scalar list keeps its spaces ("float, bf16");
// a misspelt key names the closest one; a mapping of one sweep's keys (what `ep --suite` read
// before the formats were one) is refused saying how to convert it.
TEST(SuiteOptions, InputsThatSurprised) {
  const Suite spaced = read("- kind: collective\n  dtypes: float, bf16\n  tests: all_reduce, all_gather\n");
  EXPECT_EQ(spaced.sweeps[0].collective.types.size(), 2u);
  EXPECT_EQ(spaced.sweeps[0].tests, (std::vector<std::string>{"all_reduce", "all_gather"}));
  EXPECT_TRUE(throws_usage([] { read("- kind: collective\n  max_byte: 1K\n"); },
                           {"s.yaml:2: sweep 1: key \"max_byte\": unknown key (did you mean \"max_bytes\"?) (the keys "
                            "of this kind: name kind"}));
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n  tokns: 16\n"); }, {"(did you mean \"tokens\"?)"}));
  // Far from every key: no guess, the list alone.
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n  kubernetes: 1\n"); },
                           {"key \"kubernetes\": unknown key (the keys of this kind: "}));
  EXPECT_TRUE(throws_usage([] { read("sweps:\n  - kind: ep\n"); },
                           {"s.yaml:1: unknown key \"sweps\" (did you mean \"sweeps\"?) (a suite's keys: sweeps description)"}));
  EXPECT_TRUE(throws_usage([] { read("tokens: [16, 64]\nhidden: 256\n"); },
                           {"s.yaml:1: key \"tokens\": a mapping of one sweep's keys, not a suite",
                            "a first line \"- kind: ep\" (or the sweep's kind)"}));
  EXPECT_TRUE(throws_usage([] { read("- kind: collective\n  max_bytes: 1GB\n"); },
                           {"s.yaml:2: sweep 1: key \"max_bytes\": '1GB': GB is 10^9 bytes", "did you mean '1G'"}));
}

const char* const kTwoSweeps =
    "- name: first\n"               // 1
    "  kind: collective\n"          // 2
    "  min_bytes: 8\n"              // 3
    "- name: second\n"              // 4
    "  kind: collective\n"          // 5
    "  tests: [all_reduce]\n"       // 6
    "  %s\n";                       // 7: the line under test

Suite read_second(const std::string& line, const SuiteCliOptions& o = options({"s.yaml"})) {
  std::string text = kTwoSweeps;
  text.replace(text.find("%s"), 2, line);
  return read(text, "s.yaml", o);
}

TEST(SuiteOptions, RefusalsNameTheFileLineSweepAndKey) {
  EXPECT_TRUE(throws_usage([] { read_second("min_byte: 8"); },
                           {"s.yaml:7: sweep 2 \"second\": key \"min_byte\": unknown key",
                            "max_bytes"}));
  EXPECT_TRUE(throws_usage([] { read_second("max_bytes: 12Q"); },
                           {"s.yaml:7: sweep 2 \"second\": key \"max_bytes\": '12Q' is not a size"}));
  EXPECT_TRUE(throws_usage([] { read_second("dtypes: [float, bogus]"); },
                           {"s.yaml:7: sweep 2 \"second\": key \"dtypes\": unknown type 'bogus'"}));
  EXPECT_TRUE(throws_usage([] { read_second("ops: [sum, nope]"); }, {"s.yaml:7:", "key \"ops\"", "nope"}));
  EXPECT_TRUE(throws_usage([] { read_second("iters: 0"); }, {"s.yaml:7:", "key \"iters\"", "out of range"}));
  EXPECT_TRUE(throws_usage([] { read_second("warmup: many"); }, {"s.yaml:7:", "key \"warmup\"", "whole number"}));
  EXPECT_TRUE(throws_usage([] { read_second("min_bytes: [8, 16]"); }, {"s.yaml:7:", "key \"min_bytes\"", "not a list"}));
  EXPECT_TRUE(throws_usage([] { read_second("min_bytes:"); }, {"s.yaml:7:", "key \"min_bytes\"", "no value"}));
  EXPECT_TRUE(throws_usage([] { read_second("min_bytes: 1G"); },
                           {"s.yaml:7:", "key \"min_bytes\"", "greater than -e/--maxbytes"}));
  EXPECT_TRUE(throws_usage([] { read_second("step_factor: 1"); }, {"s.yaml:7:", "key \"step_factor\"", "-i/--stepbytes"}));
  EXPECT_NO_THROW(read_second("timer: device"));  // auto may pick nccl
  EXPECT_TRUE(throws_usage(
      [] { read_second("timer: device", options({"s.yaml", "--backend", "mpi"})); },
      {"s.yaml:7: sweep 2 \"second\": key \"timer\": device needs the nccl backend"}));
  EXPECT_TRUE(throws_usage([] { read_second("name: first"); },
                           {"s.yaml:7: duplicate key 'name' (first on line 4)"}));
}

TEST(SuiteOptions, TestsAreCheckedAsOnTheCommandLine) {
  const auto with_tests = [](const std::string& tests) {
    return read("- name: t\n  kind: collective\n  tests: " + tests + "\n");
  };
  EXPECT_TRUE(throws_usage([&] { with_tests("[all_reduce, all_gathr]"); },
                           {"s.yaml:3: sweep 1 \"t\": key \"tests\": unknown test 'all_gathr' (did you mean 'all_gather'?)"}));
  EXPECT_TRUE(throws_usage([&] { with_tests("[list]"); }, {"key \"tests\"", "unknown test 'list'"}));
  EXPECT_TRUE(throws_usage([&] { with_tests("['--help']"); }, {"key \"tests\"", "unknown test '--help'"}));
  EXPECT_TRUE(throws_usage([&] { with_tests("[[all_reduce]]"); }, {"key \"tests\"", "single values"}));
  EXPECT_EQ(with_tests("all").sweeps[0].tests.size(), collective_tests().size());
}

TEST(SuiteOptions, EntriesThemselves) {
  EXPECT_TRUE(throws_usage([] { read("- name: a\n  kind: collective\n- kind: col\n"); },
                           {"s.yaml:3: sweep 2: key \"kind\"", "\"col\" is not a kind"}));
  EXPECT_TRUE(throws_usage([] { read("- name: a\n  kind: collective\n- name: b\n"); },
                           {"s.yaml:3: sweep 2 \"b\"", "no key \"kind\""}));
  EXPECT_TRUE(throws_usage([] { read("- name: a\n  kind: ep\n- name: a\n  kind: ep\n"); },
                           {"s.yaml:3: sweep 2 \"a\"", "names must differ"}));
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n- 5\n"); }, {"s.yaml:2: sweep 2", "not a mapping"}));
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n  name: 5\n"); }, {"s.yaml:2: sweep 1", "key \"name\""}));
  // A collective key in an EP sweep is unknown there, and the message lists the EP keys.
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n  min_bytes: 8\n"); },
                           {"s.yaml:2: sweep 1: key \"min_bytes\": unknown key", "tokens"}));
}

TEST(SuiteOptions, EpValuesAreCheckedAsOnTheCommandLine) {
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  tokens: [16, x]\n"); },
                           {"s.yaml:3: sweep 1 \"e\": key \"tokens\": 'x' is not a whole number"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  experts: 8\n  topk: 9\n"); },
                           {"s.yaml:4:", "key \"topk\"", "more than the experts"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  dtype: fp8\n  hidden: 100\n"); },
                           {"sweep 1 \"e\"", "key \"hidden\"", "not a multiple of 128"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  routing: [randn, randn]\n"); },
                           {"s.yaml:3:", "key \"routing\"", "given twice"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  topk_groups: -1\n"); },
                           {"s.yaml:3:", "key \"topk_groups\": -1 is out of range"}));
}

// One format: an ep entry takes every key of `commsweep ep` (impl, lsa_blocks and check
// included), a collective entry every collective key (buffers, check and timeout included).
TEST(SuiteOptions, EveryKeyOfEachKind) {
  const Suite s = read(
      "- name: e\n  kind: ep\n  impl: [alltoallv, lsa]\n  lsa_blocks: 64\n  check: false\n"
      "  experts: 16\n  seed: 7\n  timeout: 90\n"
      "- name: c\n  kind: collective\n  buffers: warm\n  check: 3\n  timeout: 45\n  timer: host\n");
  const ep::EpConfig& e = s.sweeps[0].ep;
  EXPECT_EQ(e.impls, (std::vector<std::string>{"alltoallv", "lsa"}));
  EXPECT_EQ(ep::impl_setting(e, "lsa_blocks").whole, 64);  // lsa's own setting
  EXPECT_FALSE(e.check);
  EXPECT_EQ(e.seed, 7u);
  EXPECT_EQ(e.timeout_s, 90);
  const SweepConfig& c = s.sweeps[1].collective;
  EXPECT_EQ(c.buffers, Buffers::Warm);
  EXPECT_EQ(c.check, 3);
  EXPECT_EQ(c.timeout_s, 45);
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  impl: nvl\n"); },
                           {"s.yaml:3: sweep 1 \"e\": key \"impl\": unknown value 'nvl' (alltoallv lsa)"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  lsa_blocks: -2\n"); },
                           {"s.yaml:3: sweep 1 \"e\": key \"lsa_blocks\": -2 is out of range (0 to 65536)"}));
  EXPECT_TRUE(throws_usage([] { read("- name: e\n  kind: ep\n  check: 2\n"); },
                           {"s.yaml:3: sweep 1 \"e\": key \"check\": 2 is out of range (0 to 1)"}));
  EXPECT_TRUE(throws_usage([] { read("- name: c\n  kind: collective\n  buffers: hot\n"); },
                           {"s.yaml:3: sweep 1 \"c\": key \"buffers\": unknown choice 'hot' (cold or warm)"}));
  // One results file records one buffers choice: collective sweeps that differ are refused,
  // naming both (an ep sweep between them has no buffers key).
  EXPECT_TRUE(throws_usage(
      [] {
        read("- name: a\n  kind: collective\n- name: e\n  kind: ep\n- name: b\n  kind: collective\n"
             "  buffers: warm\n");
      },
      {"s.yaml:5: sweep 3 \"b\": key \"buffers\": warm differs from cold of s.yaml:1: sweep 1 \"a\"",
       "run a second suite"}));
  EXPECT_EQ(read("- name: a\n  kind: collective\n  buffers: warm\n- name: b\n  kind: collective\n  buffers: warm\n")
                .sweeps[1]
                .collective.buffers,
            Buffers::Warm);
  // The command line's own flags are not keys.
  EXPECT_TRUE(throws_usage([] { read("- name: c\n  kind: collective\n  fault: hang:1\n"); },
                           {"s.yaml:3: sweep 1 \"c\": key \"fault\": unknown key"}));
}

// -T and -c given to `commsweep suite` override every sweep's key; not given, each sweep's key
// or the default applies.
TEST(SuiteOptions, CommandLineOverSweepKeyOverDefault) {
  const char* text = "- kind: collective\n  timeout: 45\n  check: 2\n- kind: ep\n  experts: 16\n  check: 0\n"
                     "- kind: collective\n";
  const Suite keys = read(text);
  EXPECT_EQ(keys.sweeps[0].collective.timeout_s, 45);
  EXPECT_EQ(keys.sweeps[0].collective.check, 2);
  EXPECT_FALSE(keys.sweeps[1].ep.check);
  EXPECT_EQ(keys.sweeps[2].collective.timeout_s, 300);
  EXPECT_EQ(keys.sweeps[2].collective.check, 1);
  const Suite flags = read(text, "s.yaml", options({"s.yaml", "-T", "20", "-c", "5"}));
  EXPECT_EQ(flags.sweeps[0].collective.timeout_s, 20);
  EXPECT_EQ(flags.sweeps[0].collective.check, 5);
  EXPECT_TRUE(flags.sweeps[1].ep.check);
  EXPECT_EQ(flags.sweeps[1].ep.timeout_s, 20);
  EXPECT_EQ(flags.sweeps[2].collective.check, 5);
}

TEST(SuiteOptions, RoutingFileIsRelativeToTheSuite) {
  const auto dir = std::filesystem::temp_directory_path() / ("suite_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "routes.txt") << "# empty\n"; }
  const std::string path = (dir / "s.yaml").string();
  const Suite s = read("- kind: ep\n  routing: file\n  routing_file: routes.txt\n  experts: 8\n", path);
  EXPECT_EQ(s.sweeps[0].ep.routing_file, (dir / "routes.txt").string());
  EXPECT_TRUE(throws_usage(
      [&] { read("- kind: ep\n  routing: file\n  routing_file: absent.txt\n  experts: 8\n", path); },
      {":3: sweep 1: key \"routing_file\"", "absent.txt"}));
  std::filesystem::remove_all(dir);
}

TEST(SuiteOptions, SyntaxErrorsNameTheFileAndLine) {
  EXPECT_TRUE(throws_usage([] { read("- kind: ep\n  tokens: *many\n"); }, {"s.yaml:2: aliases"}));
  EXPECT_TRUE(throws_usage([] { read("[{\"kind\": \"ep\"},\n {\"kind\": ep}]", "s.json"); },
                           {"s.json:2: not valid JSON"}));
  // JSON keeps no lines for values: the sweep and key are named without one.
  EXPECT_TRUE(throws_usage([] { read(R"([{"kind": "ep", "tokenz": 5}])", "s.json"); },
                           {"s.json: sweep 1: key \"tokenz\": unknown key"}));
}

// The message of the flag itself follows the key in the suite's: one validation, through the
// same setting, only the place named differs.
TEST(SuiteOptions, SameMessageAsTheCommandLine) {
  std::string cli_message;
  try {
    const char* argv[] = {"commsweep", "-e", "12Q"};
    parse_measure_options(default_workload(), 3, argv);
  } catch (const Error& e) {
    cli_message = e.what();
  }
  const std::string flag = "-e/--maxbytes: ";
  ASSERT_EQ(cli_message.compare(0, flag.size(), flag), 0) << cli_message;
  EXPECT_TRUE(throws_usage([] { read_second("max_bytes: 12Q"); },
                           {"key \"max_bytes\": " + cli_message.substr(flag.size())}));
}

}  // namespace
}  // namespace commsweep

namespace commsweep {
namespace {

TEST(SuiteOptions, HelpTeachesWithAnExample) {
  const std::string help = suite_help_text();
  for (const char* word : {"Usage: mpirun -np N commsweep suite FILE", "--backend", "--timeout",
                           "--check", "--json", "min_bytes", "tokens", "routing_file",
                           "kind: collective", "kind: ep", "suites/ci.yaml", "anchors",
                           "Exit codes"}) {
    EXPECT_NE(help.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace commsweep
