// The one table and parser of every workload's planted faults (faults/catalog.hpp).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "faults/catalog.hpp"
#include "usage_error.hpp"

using commsweep::faults::catalog;
using commsweep::faults::fault_forms;
using commsweep::faults::parse_fault;
using commsweep::testing::throws_usage;

TEST(FaultCatalog, EveryWorkloadsFaultsInOneTableOnceEach) {
  std::set<std::string> seen;
  for (const auto& e : catalog()) {
    EXPECT_TRUE(seen.insert(std::string(e.workload) + "/" + std::string(e.name)).second) << e.name;
    EXPECT_FALSE(e.does.empty()) << e.name;
  }
  EXPECT_EQ(fault_forms("collective"),
            "wrong-element:RANK, never-join:RANK[@SIZE], hang:RANK[@SIZE], alloc:RANK, async-error:RANK[@SIZE] or "
            "slow:RANK[@SIZE]");
  EXPECT_EQ(fault_forms("ep"), "wrong-element:RANK");
  EXPECT_EQ(fault_forms("pairs"), "slow-rank:RANK, slow-leaf:LEAF or hang:RANK@ROUND");
  EXPECT_EQ(fault_forms("nvlink"), "slow-pair:RANK,RANK");
}

TEST(FaultCatalog, EachFormParsed) {
  auto p = parse_fault("collective", "hang:2@64K", "--fault");
  EXPECT_EQ(p.name, "hang");
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.from_bytes, 65536u);
  EXPECT_EQ(parse_fault("collective", "slow:1", "--fault").from_bytes, 0u);
  p = parse_fault("pairs", "hang:3@2", "--fault");  // the same name, the pairs' form: a round
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.round, 2);
  EXPECT_EQ(parse_fault("pairs", "slow-leaf:leaf-b", "--fault").leaf, "leaf-b");
  p = parse_fault("nvlink", "slow-pair:1,2", "--fault");
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.other_rank, 2);
  EXPECT_EQ(p.text, "slow-pair:1,2");
}

TEST(FaultCatalog, EveryMistakeNamesWhereAndTheForms) {
  const std::string where = "suite.yaml:4: key fault";
  EXPECT_TRUE(throws_usage([&] { parse_fault("collective", "explode:1", where); },
                           {where, "unknown fault 'explode'", "slow:RANK[@SIZE]"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("ep", "slow:1", "--fault"); }, {"unknown fault 'slow'", "wrong-element:RANK"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("collective", "hang", "--fault"); }, {"--fault", "hang:1"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("collective", "alloc:x", "--fault"); }, {"'x' is not a rank"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("collective", "alloc:99999999999999", "--fault"); }, {"99999999999999"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("collective", "hang:1@lots", "--fault"); }, {"hang:RANK@SIZE", "lots"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("collective", "wrong-element:1@4K", "--fault"); },
                           {"@SIZE is for never-join, hang, async-error and slow"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("pairs", "hang:1@0", "--fault"); }, {"is not hang:RANK@ROUND", "from 1"}));
  EXPECT_TRUE(throws_usage([] { parse_fault("pairs", "slow-leaf:", "--fault"); }, {"is not slow-leaf:LEAF"}));
  for (const char* bad : {"slow-pair:1", "slow-pair:1,1", "slow-pair:a,2"})
    EXPECT_TRUE(throws_usage([&] { parse_fault("nvlink", bad, "--fault"); }, {"is not slow-pair:RANK,RANK", "two different"}));
}
