#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

// The size is each rank's whole send buffer: n blocks, one per peer.
Counts counts(std::size_t count, std::size_t element_bytes, int n) {
  const std::size_t per_peer = per_rank_block(count, element_bytes, n);
  return {per_peer * n, per_peer * n, per_peer, 0, 0};
}

// Block s of rank r's output is block r of rank s's input.
pattern::Expect expected(const pattern::Spec& spec, const Counts& c, int rank, int, int) {
  return expect::copied_in_blocks(spec, c.param_count, static_cast<std::size_t>(rank) * c.param_count);
}

}  // namespace

// In place, send and receive share one buffer that peers overwrite while it is being sent:
// timed like nccl-tests, with #wrong N/A.
const CollectiveTest& alltoall_test() {
  static const CollectiveTest test{"alltoall", "every rank sends a distinct block to every rank",
                                   40, false, false, false, factor_n_minus_1_over_n, "(n-1)/n",
                                   counts, expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
