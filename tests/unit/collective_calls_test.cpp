// The collectives' two generated tables (src/CMakeLists.txt, commsweep_generated_table): every
// descriptor (collectives/<name>.cpp) has its backend calls (comm/calls/<name>.cpp) and every
// call its descriptor, so that a collective is its files and nothing else.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "collectives/collective_test.hpp"
#include "comm/collective_call.hpp"

namespace commsweep {
namespace {

TEST(CollectiveCalls, EveryDescriptorHasItsCallsAndEveryCallItsDescriptor) {
  std::set<std::string> tests, calls;
  for (const CollectiveTest* t : collective_tests()) tests.insert(std::string(t->name));
  for (const CollectiveCall* c : collective_calls()) calls.insert(std::string(c->name));
  EXPECT_EQ(tests, calls);
  EXPECT_EQ(tests.size(), collective_tests().size()) << "two descriptors share a name";
  EXPECT_EQ(calls.size(), collective_calls().size()) << "two calls share a name";
  for (const CollectiveTest* t : collective_tests()) {
    EXPECT_EQ(collective_call(t->name).name, t->name);
  }
}

TEST(CollectiveCalls, EveryCallIssuesOnBothBackends) {
  for (const CollectiveCall* c : collective_calls()) {
    EXPECT_NE(c->mpi_issue, nullptr) << c->name;
    EXPECT_EQ(c->nccl_issue != nullptr, COMMSWEEP_HAVE_NCCL_BACKEND == 1) << c->name;
  }
  EXPECT_THROW(collective_call("no_such_collective"), std::logic_error);
}

TEST(CollectiveRegistry, ListedInTheDescriptorsOrderWithTheirBusbwText) {
  const auto& tests = collective_tests();
  ASSERT_GE(tests.size(), 7u);
  // The order `commsweep list` has always printed for the first seven.
  const char* first[] = {"all_reduce", "all_gather", "reduce_scatter",
                         "alltoall",   "broadcast",  "reduce"};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(tests[i]->name, first[i]);
  for (std::size_t i = 1; i < tests.size(); ++i) EXPECT_LT(tests[i - 1]->order, tests[i]->order);
  for (const CollectiveTest* t : tests) {
    EXPECT_FALSE(t->bus_factor_text.empty()) << t->name;
    EXPECT_FALSE(t->summary.empty()) << t->name;
  }
}

}  // namespace
}  // namespace commsweep
