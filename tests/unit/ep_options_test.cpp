// `commsweep ep`'s command line: the axes as comma lists with DeepEP's defaults, --suite files
// that the command line overrides, and usage errors that name the flag or the file and key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "ep/ep_config.hpp"
#include "ep/implementation.hpp"
#include "ep/settings.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;

// What `commsweep ep`'s command line gave (parse_measure_options on the ep workload), as the
// fields the tests below read.
struct EpCliOptions {
  ep::EpConfig config;
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::vector<std::string> arguments;
  bool help = false;
};

EpCliOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), {"commsweep", "ep"});
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  const MeasureOptions m = parse_measure_options(*find_command_workload("ep"), static_cast<int>(argv.size()), argv.data());
  EpCliOptions o;
  o.help = m.help;
  o.arguments = m.arguments;
  if (!m.measurement) return o;
  o.config = config_of<ep::EpConfig>(*m.measurement);
  o.backend = m.run.backend;
  o.json_path = m.run.json_path;
  return o;
}

std::string ep_help_text() { return measure_help_text(*find_command_workload("ep")); }

// An implementation's own settings come from its descriptor (EpImplementation::settings), not
// from a field of EpConfig or a line of ep/settings.cpp: each is a flag and a suite key of the
// table, in its settings section, and reads as its default where not given.
TEST(EpOptions, ImplementationSettingsComeFromTheirDescriptors) {
  const auto specs = ep::ep_settings().specs();
  int declared = 0;
  for (const ep::EpImplementation* impl : ep::ep_implementations()) {
    for (const settings::Spec& own : impl->settings) {
      ++declared;
      const settings::Spec* found = nullptr;
      for (const settings::Spec* s : specs) {
        if (s->flag == own.flag) found = s;
      }
      ASSERT_NE(found, nullptr) << impl->name << ": --" << own.flag << " is not in the ep table";
      EXPECT_EQ(found->key, own.key);
      EXPECT_EQ(found->section, ep::kSettingsSection);
    }
  }
  EXPECT_GE(declared, 1);  // lsa's --lsa-blocks
  EXPECT_EQ(ep::impl_setting(parse({}).config, "lsa_blocks").whole, 0);
  EXPECT_EQ(ep::impl_setting(ep::EpConfig{}, "lsa_blocks").whole, 0);  // not read: the default
  EXPECT_EQ(ep::impl_setting(parse({"--lsa-blocks", "3"}).config, "lsa_blocks").whole, 3);
}

TEST(EpOptions, DefaultsAreDeepEpsTest) {
  const EpCliOptions o = parse({});
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.backend, BackendChoice::Auto);
  EXPECT_EQ(o.config.tokens, (std::vector<int>{128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(o.config.hidden, std::vector<int>{7168});
  EXPECT_EQ(o.config.topk, std::vector<int>{8});
  EXPECT_EQ(o.config.experts, std::vector<int>{256});
  EXPECT_EQ(o.config.dtypes, std::vector<ep::EpDtype>{ep::EpDtype::Bf16});
  EXPECT_EQ(o.config.routings, std::vector<ep::RoutingKind>{ep::RoutingKind::Randn});
  EXPECT_EQ(o.config.skew, 1.0);
  EXPECT_EQ(o.config.topk_groups, 0);
  EXPECT_EQ(o.config.iters, 20);
  EXPECT_EQ(o.config.warmup, 5);
  EXPECT_TRUE(o.config.check);
  EXPECT_EQ(o.config.timeout_s, 300);
  EXPECT_EQ(o.config.seed, ep::EpConfig{}.seed);
  EXPECT_EQ(o.arguments, std::vector<std::string>{"ep"});
}

TEST(EpOptions, AxesAndSettings) {
  const EpCliOptions o =
      parse({"--tokens", "0,1,16", "--hidden", "256,7168", "--topk", "2,4", "--experts", "8,12",
             "--dtype", "bf16,fp8", "--routing", "uniform,balanced,skewed", "--skew", "2.5",
             "--topk-groups", "2", "-n", "3", "-w", "0", "-c", "0", "-T", "60", "--seed", "0x10",
             "--backend", "mpi", "--json", "out.json"});
  EXPECT_EQ(o.config.tokens, (std::vector<int>{0, 1, 16}));
  EXPECT_EQ(o.config.hidden, (std::vector<int>{256, 7168}));
  EXPECT_EQ(o.config.topk, (std::vector<int>{2, 4}));
  EXPECT_EQ(o.config.experts, (std::vector<int>{8, 12}));
  EXPECT_EQ(o.config.dtypes, (std::vector<ep::EpDtype>{ep::EpDtype::Bf16, ep::EpDtype::Fp8}));
  EXPECT_EQ(o.config.routings,
            (std::vector<ep::RoutingKind>{ep::RoutingKind::Uniform, ep::RoutingKind::Balanced,
                                          ep::RoutingKind::Skewed}));
  EXPECT_EQ(o.config.skew, 2.5);
  EXPECT_EQ(o.config.topk_groups, 2);
  EXPECT_EQ(o.config.iters, 3);
  EXPECT_EQ(o.config.warmup, 0);
  EXPECT_FALSE(o.config.check);
  EXPECT_EQ(o.config.timeout_s, 60);
  EXPECT_EQ(o.config.seed, 16u);
  EXPECT_EQ(o.backend, BackendChoice::Mpi);
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_EQ(o.arguments.front(), "ep");
}

TEST(EpOptions, Help) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h", "--tokens", "bogus"}).help);
  const std::string text = ep_help_text();
  for (const char* word : {"--tokens", "--hidden", "--topk", "--experts", "--dtype", "--routing",
                           "--skew", "--routing-file", "--topk-groups", "--iters", "--warmup_iters",
                           "--check", "--timeout", "--seed", "--backend", "--json", "--suite",
                           "dispatch", "combine", "DeepEP", "UCCL-EP", "fabric", "median",
                           "--tokens 512 --experts 32", "Exit codes", "10 slow", "expected time"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word;
  }
}

TEST(EpOptionsRefused, BadValuesNameTheFlag) {
  EXPECT_TRUE(throws_usage([] { parse({"--tokens", "1,x"}); }, {"--tokens", "'x'"}));
  EXPECT_TRUE(throws_usage([] { parse({"--tokens=-1"}); }, {"--tokens"}));
  EXPECT_TRUE(throws_usage([] { parse({"--tokens", "16,16"}); }, {"--tokens", "twice"}));
  EXPECT_TRUE(throws_usage([] { parse({"--hidden", "0"}); }, {"--hidden", "out of range"}));
  EXPECT_TRUE(throws_usage([] { parse({"--topk", ","}); }, {"--topk", "no value"}));
  EXPECT_TRUE(throws_usage([] { parse({"--dtype", "fp16"}); }, {"--dtype", "fp16", "bf16 fp8"}));
  EXPECT_TRUE(throws_usage([] { parse({"--routing", "zipf"}); }, {"--routing", "zipf"}));
  EXPECT_TRUE(throws_usage([] { parse({"--skew", "0"}); }, {"--skew", "> 0"}));
  EXPECT_TRUE(throws_usage([] { parse({"--skew", "nan"}); }, {"--skew"}));
  EXPECT_TRUE(throws_usage([] { parse({"-n", "0"}); }, {"-n/--iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"--warmup_iters=-1"}); }, {"-w/--warmup_iters"}));
  EXPECT_TRUE(throws_usage([] { parse({"-c", "2"}); }, {"-c/--check"}));
  EXPECT_TRUE(throws_usage([] { parse({"-T", "0"}); }, {"-T/--timeout"}));
  EXPECT_TRUE(throws_usage([] { parse({"--seed=-3"}); }, {"--seed"}));
  EXPECT_TRUE(throws_usage([] { parse({"--backend", "ucx"}); }, {"--backend"}));
  EXPECT_TRUE(throws_usage([] { parse({"--bogus"}); }, {"--bogus"}));
  EXPECT_TRUE(throws_usage([] { parse({"all_reduce"}); }, {"ep"}));
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "never-join:1"}); }, {"--fault", "never-join"}));
  EXPECT_TRUE(throws_usage([] { parse({"--fault", "wrong-element:x"}); }, {"--fault", "'x'"}));
}

TEST(EpOptions, FaultForTesting) {
  EXPECT_EQ(parse({}).config.fault_wrong_rank, -1);
  EXPECT_EQ(parse({"--fault", "wrong-element:2"}).config.fault_wrong_rank, 2);
}

TEST(EpOptionsRefused, CombinationsThatCannotRun) {
  EXPECT_TRUE(throws_usage([] { parse({"--dtype", "bf16,fp8", "--hidden", "256,100"}); },
                           {"--hidden", "100", "128", "--dtype"}));
  EXPECT_NO_THROW(parse({"--dtype", "bf16", "--hidden", "100"}));
  EXPECT_TRUE(throws_usage([] { parse({"--topk", "2,9", "--experts", "8,16"}); },
                           {"--topk", "9", "--experts", "8"}));
  EXPECT_TRUE(throws_usage([] { parse({"--routing", "randn,file"}); }, {"--routing-file"}));
  EXPECT_TRUE(throws_usage([] { parse({"--routing", "file", "--routing-file", "/nonexistent/r"}); },
                           {"--routing-file", "/nonexistent/r"}));
  EXPECT_TRUE(throws_usage([] { parse({"--routing", "file", "--routing-file", "/"}); },
                           {"--routing-file"}));
  EXPECT_TRUE(throws_usage([] { parse({"--routing-file", "/etc/hostname"}); },
                           {"--routing-file", "--routing file"}));
}

class EpSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("commsweep-ep-suite-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const char* name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(EpSuite, SetsAxesAndSettings) {
  write("r.txt", "# a routing table\n");
  const std::string suite = write("s.json", R"([{"kind": "ep",
    "tokens": [0, 64], "hidden": 256, "topk": [2], "experts": [8, 12],
    "dtype": ["bf16", "fp8"], "routing": ["balanced", "file"], "skew": 2,
    "routing_file": "r.txt", "topk_groups": 1, "iters": 3, "warmup": 1, "check": true,
    "seed": 18446744073709551615 }])");
  const EpCliOptions o = parse({"--suite", suite});
  EXPECT_EQ(o.config.tokens, (std::vector<int>{0, 64}));
  EXPECT_EQ(o.config.hidden, std::vector<int>{256});
  EXPECT_EQ(o.config.experts, (std::vector<int>{8, 12}));
  EXPECT_EQ(o.config.dtypes.size(), 2u);
  EXPECT_EQ(o.config.routings,
            (std::vector<ep::RoutingKind>{ep::RoutingKind::Balanced, ep::RoutingKind::File}));
  EXPECT_EQ(o.config.skew, 2.0);
  // Relative to the suite's folder.
  EXPECT_EQ(std::filesystem::path(o.config.routing_file), dir_ / "r.txt");
  EXPECT_EQ(o.config.topk_groups, 1);
  EXPECT_EQ(o.config.iters, 3);
  EXPECT_EQ(o.config.warmup, 1);
  EXPECT_TRUE(o.config.check);
  EXPECT_EQ(o.config.seed, 18446744073709551615ull);
}

TEST_F(EpSuite, FlagsGivenOverrideItDefaultsDoNot) {
  const std::string suite = write("s.json", R"({"sweeps": [{"kind": "ep", "tokens": [16], "iters": 7, "topk": 2}]})");
  const EpCliOptions o = parse({"--suite", suite, "--tokens", "1,2", "-n", "20"});
  EXPECT_EQ(o.config.tokens, (std::vector<int>{1, 2}));
  EXPECT_EQ(o.config.iters, 20);  // typed, though equal to the default
  EXPECT_EQ(o.config.topk, std::vector<int>{2});
  EXPECT_EQ(o.config.hidden, std::vector<int>{7168});  // neither: the default
}

// The format of `commsweep suite`: a suite of one ep sweep, YAML too, with lines in its messages.
TEST_F(EpSuite, YamlAsASuiteOfOneEpSweep) {
  write("r.txt", "# a routing table\n");
  const std::string yaml = write("s.yaml",
                                 "- kind: ep\n"
                                 "  name: moe\n"
                                 "  tokens: [16, 32]\n"
                                 "  experts: 8\n"
                                 "  topk: 2\n"
                                 "  impl: lsa\n"
                                 "  lsa_blocks: 32\n"
                                 "  check: false\n"
                                 "  routing: file\n"
                                 "  routing_file: r.txt\n"
                                 "  timeout: 30\n");
  const EpCliOptions o = parse({"--suite", yaml, "--lsa-blocks", "8"});
  EXPECT_EQ(o.config.tokens, (std::vector<int>{16, 32}));
  EXPECT_EQ(o.config.impls, std::vector<std::string>{"lsa"});
  EXPECT_EQ(ep::impl_setting(o.config, "lsa_blocks").whole, 8);  // the flag over the key
  EXPECT_FALSE(o.config.check);
  EXPECT_EQ(o.config.timeout_s, 30);
  EXPECT_EQ(std::filesystem::path(o.config.routing_file), dir_ / "r.txt");
  const std::string bad = write("b.yaml", "- kind: ep\n  tokens: 16\n  topk: 2\n  impl: [alltoallv, nvl]\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", bad}); },
                           {"--suite " + bad + ":4: key \"impl\": unknown value 'nvl' (alltoallv lsa)"}));
  const std::string unknown = write("u.yaml", "- kind: ep\n  tokens: 16\n  min_bytes: 8\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", unknown}); },
                           {"--suite " + unknown + ":3: key \"min_bytes\": unknown key", "lsa_blocks"}));
  const std::string typo = write("t.yaml", "- kind: ep\n  tokns: 16\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", typo}); },
                           {"--suite " + typo + ":2: key \"tokns\": unknown key (did you mean \"tokens\"?)"}));
  const std::string kind = write("k.yaml", "- kind: collective\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", kind}); },
                           {kind + ":1: key \"kind\": \"collective\" is not ep", "commsweep suite " + kind}));
  const std::string cross = write("c.yaml", "- kind: ep\n  experts: 4\n  topk: 8\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", cross}); },
                           {cross + ":3: key \"topk\": 8 is more than the experts", cross + ":2: key \"experts\" 4"}));
}

// The mapping of ep keys `ep --suite` read before it read suite files: refused, saying how to
// convert it (a file that runs as `commsweep suite` too); and what is no suite of one ep sweep.
TEST_F(EpSuite, OtherShapesAreRefusedSayingWhatToDo) {
  const std::string old = write("old.yaml", "tokens: [16, 64]\nhidden: 256\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", old}); },
                           {"--suite " + old + ":1: key \"tokens\": a mapping of one sweep's keys, not a suite",
                            "\"- kind: ep\"", "indented by two spaces"}));
  const std::string two = write("two.yaml", "- kind: ep\n- kind: ep\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", two}); },
                           {two, ": 2 sweeps; `commsweep ep --suite` runs a suite of one ep sweep",
                            "commsweep suite " + two}));
  const std::string kindless = write("n.yaml", "- tokens: 16\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", kindless}); }, {kindless + ":1: no key \"kind\""}));
  const std::string top = write("top.yaml", "sweps:\n  - kind: ep\n");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", top}); }, {top + ":1: unknown key \"sweps\" (did you mean \"sweeps\"?)"}));
}

TEST_F(EpSuite, ErrorsNameTheFileAndTheKey) {
  const std::string unknown = write("u.json", R"([{"kind": "ep", "tokenz": 16}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", unknown}); }, {"--suite", unknown, "tokenz"}));
  const std::string type = write("t.json", R"([{"kind": "ep", "topk": "two"}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", type}); }, {type, "\"topk\"", "two"}));
  const std::string value = write("v.json", R"([{"kind": "ep", "experts": [8, 0]}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", value}); }, {value, "\"experts\"", "range"}));
  const std::string list = write("l.json", R"([{"kind": "ep", "iters": [1, 2]}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", list}); }, {list, "\"iters\""}));
  const std::string name = write("n.json", R"([{"kind": "ep", "dtype": ["bf16", 8]}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", name}); }, {name, "\"dtype\""}));
  const std::string fp8 = write("f.json", R"([{"kind": "ep", "dtype": "fp8", "hidden": 100}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", fp8}); }, {fp8, "\"hidden\"", "100"}));
  const std::string file = write("r.json", R"([{"kind": "ep", "routing": "file", "routing_file": "absent.txt"}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", file}); }, {file, "\"routing_file\"", "absent.txt"}));
  const std::string bad = write("b.json", R"([{"kind": "ep", "tokens": [16,)");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", bad}); }, {bad, "not valid JSON"}));
  const std::string array = write("a.json", "[1]");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", array}); }, {array, "not a mapping of ep settings"}));
  // Found by tests/mpi/bad_input_check.py: nlohmann::json throws out_of_range, not parse_error,
  // for a number beyond double; it escaped as an uncaught exception (abort, exit -6).
  const std::string overflow = write("o.json", R"([{"kind": "ep", "tokens": 1e400}])");
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", overflow}); }, {overflow, "not valid JSON", "1e400"}));
  EXPECT_TRUE(throws_usage([&] { parse({"--suite", (dir_ / "absent.json").string()}); },
                           {"--suite", "absent.json"}));
}

}  // namespace
}  // namespace commsweep
