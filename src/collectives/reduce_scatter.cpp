#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

// The size is the input; each rank receives the reduction of its 1/n block.
Counts counts(std::size_t count, std::size_t element_bytes, int n) {
  const std::size_t per_rank = per_rank_block(count, element_bytes, n);
  return {per_rank * n, per_rank, per_rank, 0, per_rank};
}

pattern::Expect expected(const pattern::Spec& spec, const Counts& c, int rank, int, int) {
  return expect::reduced(spec, static_cast<std::size_t>(rank) * c.recv_count);
}

}  // namespace

const CollectiveTest& reduce_scatter_test() {
  static const CollectiveTest test{"reduce_scatter",
                                   "rank r gets block r of the reduction of all inputs",
                                   30, true, false, true, factor_n_minus_1_over_n, "(n-1)/n",
                                   counts, expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
