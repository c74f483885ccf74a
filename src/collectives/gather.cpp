#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

// Only the root receives anything.
bool root_only(int rank, int root) { return rank == root; }

}  // namespace

// nccl-tests' gather_perf: the gathered buffer (collective_test.hpp: gathered_counts,
// gathered_blocks, whole 16-byte blocks as all_gather) at the root only; busbw (n-1)/n: the
// root receives the n-1 other blocks over its link.
const CollectiveTest& gather_test() {
  static const CollectiveTest test{"gather", "the root gets every rank's block", 80, false, true,
                                   true, factor_n_minus_1_over_n, "(n-1)/n", gathered_counts, gathered_blocks,
                                   root_only};
  return test;
}

}  // namespace commsweep
