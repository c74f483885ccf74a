// broadcast's backend calls: MPI_Ibcast, ncclBroadcast.
#include <cstring>

#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

// MPI broadcasts in one buffer: out of place, the root first copies its input into it.
void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  if (ctx.rank == a.root && a.send != a.recv) {
    std::memcpy(a.recv, a.send, a.count * ctx.element_bytes);
  }
  MPI_Request r;
  CS_MPI(MPI_Ibcast(a.recv, mpi_count(a), ctx.datatype, a.root, ctx.comm, &r));
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclBroadcast(a.send, a.recv, a.count, ctx.datatype, a.root, ctx.comm,
                                  ctx.stream));
}
#endif

}  // namespace

const CollectiveCall& broadcast_call() {
  static const CollectiveCall call{"broadcast", nullptr, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
