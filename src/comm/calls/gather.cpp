// gather's backend calls: MPI_Igather; on NCCL (no ncclGather) grouped point-to-point, as
// nccl-tests' gather_perf: every rank sends its block to the root, the root receives block r
// from rank r.
#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

// In place (NCCL's convention), the root's block already sits at its offset of the receive buffer.
void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  const bool in_place = static_cast<const char*>(a.send) ==
                        static_cast<const char*>(a.recv) + ctx.rank * a.count * ctx.element_bytes;
  const void* send = in_place && ctx.rank == a.root ? MPI_IN_PLACE : a.send;
  MPI_Request r;
  CS_MPI(MPI_Igather(send, mpi_count(a), ctx.datatype, a.recv, mpi_count(a), ctx.datatype, a.root,
                     ctx.comm, &r));
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  const std::size_t block = a.count * ctx.element_bytes;
  CS_NCCL_CALL(ctx, ncclGroupStart());
  CS_NCCL_CALL(ctx, ncclSend(a.send, a.count, ctx.datatype, a.root, ctx.comm, ctx.stream));
  if (ctx.rank == a.root) {
    for (int peer = 0; peer < ctx.size; ++peer) {
      CS_NCCL_CALL(ctx, ncclRecv(static_cast<char*>(a.recv) + peer * block, a.count, ctx.datatype,
                                 peer, ctx.comm, ctx.stream));
    }
  }
  CS_NCCL_CALL(ctx, ncclGroupEnd());
}
#endif

}  // namespace

const CollectiveCall& gather_call() {
  static const CollectiveCall call{"gather", nullptr, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
