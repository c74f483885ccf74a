#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

Counts counts(std::size_t count, std::size_t, int) { return {count, count, count, 0, 0}; }

// Each rank sends to rank+1 and receives from rank-1 (a ring), so its output is the input
// of its left neighbour.
pattern::Expect expected(const pattern::Spec& spec, const Counts&, int rank, int nranks, int) {
  return expect::copied_from(spec, (rank + nranks - 1) % nranks, 0);
}

}  // namespace

// In place, a rank receives into the buffer it is sending from: NCCL gives no ordering
// between the two (seen on 4 x H200: elements overwritten before they were sent), so the
// in-place half is timed, with #wrong N/A, like alltoall.
const CollectiveTest& sendrecv_test() {
  static const CollectiveTest test{"sendrecv", "each rank sends to its ring neighbour",
                                   70, false, false, false, factor_one, "1", counts,
                                   expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
