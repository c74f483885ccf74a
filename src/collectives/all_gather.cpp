#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

// The size is the gathered buffer; each rank contributes 1/n of it.
Counts counts(std::size_t count, std::size_t element_bytes, int n) {
  const std::size_t per_rank = per_rank_block(count, element_bytes, n);
  return {per_rank, per_rank * n, per_rank, per_rank, 0};
}

// Block r of the output is rank r's input.
pattern::Expect expected(const pattern::Spec& spec, const Counts& c, int, int, int) {
  return expect::copied_in_blocks(spec, c.param_count, 0);
}

}  // namespace

const CollectiveTest& all_gather_test() {
  static const CollectiveTest test{"all_gather", "every rank gets every rank's block",
                                   20, false, false, true, factor_n_minus_1_over_n, "(n-1)/n",
                                   counts, expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
