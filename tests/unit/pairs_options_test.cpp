// `commsweep pairs`' command line, read through its settings table (pairs/settings.hpp):
// defaults, the repeatable --topology, the hidden test hooks, --plan's flag rules, and refusals
// that say `pairs:` and name the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "pairs/settings.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;

// What `commsweep pairs`' command line gave (parse_measure_options on the pairs workload): its
// settings, and the run's the tests below read.
struct PairsOptions : pairs::PairsSettings {
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::vector<std::string> arguments;
};

PairsOptions parse_pairs(std::vector<std::string> args) {
  args.insert(args.begin(), {"commsweep", "pairs"});
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  const MeasureOptions m = parse_measure_options(*find_command_workload("pairs"), static_cast<int>(argv.size()), argv.data());
  PairsOptions o;
  static_cast<pairs::PairsSettings&>(o) = config_of<pairs::PairsSettings>(*m.measurement);
  o.backend = m.run.backend;
  o.json_path = m.run.json_path;
  o.arguments = m.arguments;
  return o;
}

std::string pairs_help_text() { return measure_help_text(*find_command_workload("pairs")); }

TEST(PairsOptions, Defaults) {
  const PairsOptions o = parse_pairs({});
  EXPECT_EQ(o.bytes, std::uint64_t{64} << 20);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmup, 5);
  EXPECT_EQ(o.check, 1);
  EXPECT_EQ(o.slow_fraction, 0.8);
  EXPECT_EQ(o.slow_fraction_of_top_third, 0.1);
  EXPECT_EQ(o.timeout_s, 300);
  EXPECT_EQ(o.pattern, "all-pairs");
  EXPECT_FALSE(o.adaptive);
  EXPECT_FALSE(o.plan);
  EXPECT_EQ(o.gpus_per_node, 8);
  EXPECT_EQ(o.slow_rank, -1);
  EXPECT_EQ(o.backend, BackendChoice::Auto);
  EXPECT_EQ(o.arguments, std::vector<std::string>{"pairs"});
}

TEST(PairsOptions, FlagsAndTestHooks) {
  const PairsOptions o = parse_pairs({"-s", "1M", "-n", "3", "-w", "0", "-c", "0", "--slow-below", "0.5", "--slow-below-top-third", "0.25", "-T", "60",
                                "--seed", "9", "--pattern", "sample:4", "--topology", "a.json", "--topology",
                                "b,c.txt", "--adaptive", "--max-minutes", "30", "--fault", "hang:1@2",
                                "--fault-slowdown", "4", "--backend", "mpi", "--json", "p.json"});
  EXPECT_EQ(o.bytes, 1u << 20);
  EXPECT_EQ(o.iters, 3);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.check, 0);
  EXPECT_EQ(o.slow_fraction, 0.5);
  EXPECT_EQ(o.slow_fraction_of_top_third, 0.25);
  EXPECT_EQ(o.timeout_s, 60);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.pattern, "sample:4");
  EXPECT_EQ(o.topology_files, (std::vector<std::string>{"a.json", "b,c.txt"}));  // repeatable, no comma split
  EXPECT_TRUE(o.adaptive);
  EXPECT_EQ(o.max_minutes, 30);
  EXPECT_EQ(o.hang_rank, 1);
  EXPECT_EQ(o.hang_round, 2);
  EXPECT_EQ(o.fault_slowdown, 4);
  EXPECT_EQ(o.backend, BackendChoice::Mpi);
  EXPECT_EQ(o.json_path, "p.json");
  EXPECT_EQ(parse_pairs({"--fault", "slow-leaf:leaf-b"}).slow_leaf, "leaf-b");
  const PairsOptions plan = parse_pairs({"--plan", "--nodes", "16", "--per-leaf", "4", "--leaves-per-block", "2"});
  EXPECT_TRUE(plan.plan);
  EXPECT_EQ(plan.plan_nodes, 16);
  EXPECT_EQ(plan.per_leaf, 4);
  EXPECT_EQ(plan.leaves_per_block, 2);
  // The test hooks are not in --help.
  EXPECT_EQ(pairs_help_text().find("--fault"), std::string::npos);
  EXPECT_NE(pairs_help_text().find("--topology"), std::string::npos);
}

TEST(PairsOptionsRefused, NameTheFlag) {
  EXPECT_TRUE(throws_usage([] { parse_pairs({"-n", "x"}); }, {"pairs: -n/--iters: 'x' is not a whole number"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"-s", "2"}); }, {"pairs: -s/--size: 2 B is less than one float (4 B)"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--slow-below", "0"}); }, {"pairs: --slow-below: 0 is not in (0, 1]"}));
  // -T is the run's (run/run_settings.hpp): the same message as every measuring command's.
  EXPECT_TRUE(throws_usage([] { parse_pairs({"-T", "0"}); }, {"-T/--timeout: 0 is out of range (1 to 604800)"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--pattern", "ring"}); }, {"pairs: --pattern: 'ring'"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--fault", "hang:1"}); }, {"pairs: --fault: 'hang:1' is not"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--fault-slowdown", "1"}); }, {"pairs: --fault-slowdown"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--nodes", "8"}); }, {"pairs: --nodes, --per-leaf and --leaves-per-block go with --plan"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--plan"}); }, {"pairs: --plan needs --nodes N or --topology FILE"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--plan", "--topology", "t.json", "--per-leaf", "2"}); },
                           {"pairs: --per-leaf and --leaves-per-block go with --plan --nodes N"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--plan", "--nodes", "8", "--leaves-per-block", "2"}); },
                           {"pairs: --leaves-per-block needs --per-leaf"}));
  EXPECT_TRUE(throws_usage([] { parse_pairs({"--bogus"}); }, {"pairs:", "bogus"}));
}

}  // namespace
}  // namespace commsweep
