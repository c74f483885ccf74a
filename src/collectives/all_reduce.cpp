#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

Counts counts(std::size_t count, std::size_t, int) { return {count, count, count, 0, 0}; }

// Ring all-reduce: each rank sends and receives 2(n-1)/n of the buffer (nccl-tests PERFORMANCE.md).
double bus_factor(int n) { return 2.0 * (n - 1) / n; }

pattern::Expect expected(const pattern::Spec& spec, const Counts&, int, int, int) {
  return expect::reduced(spec, 0);
}

}  // namespace

const CollectiveTest& all_reduce_test() {
  static const CollectiveTest test{"all_reduce", "every rank gets the reduction of all inputs",
                                   10, true, false, true, bus_factor, "2(n-1)/n", counts,
                                   expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
