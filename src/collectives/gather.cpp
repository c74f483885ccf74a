#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

// nccl-tests' gather_perf: the size is the gathered buffer at the root; each rank sends 1/n of
// it (whole 16-byte blocks, as all_gather), and in place its block sits at its offset there.
Counts counts(std::size_t count, std::size_t element_bytes, int n) {
  const std::size_t per_rank = per_rank_block(count, element_bytes, n);
  return {per_rank, per_rank * n, per_rank, per_rank, 0};
}

// At the root, block r of the output is rank r's input.
pattern::Expect expected(const pattern::Spec& spec, const Counts& c, int, int, int) {
  return expect::copied_in_blocks(spec, c.param_count, 0);
}

// Only the root receives anything.
bool root_only(int rank, int root) { return rank == root; }

}  // namespace

// busbw (n-1)/n: the root receives the n-1 other blocks over its link.
const CollectiveTest& gather_test() {
  static const CollectiveTest test{"gather", "the root gets every rank's block", 80, false, true,
                                   true, factor_n_minus_1_over_n, "(n-1)/n", counts, expected,
                                   root_only};
  return test;
}

}  // namespace commsweep
