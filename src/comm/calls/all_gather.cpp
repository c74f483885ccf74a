// all_gather's backend calls: MPI_Iallgather, ncclAllGather.
#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  // In place, this rank's block already sits at its offset of the receive buffer.
  const bool in_place = static_cast<const char*>(a.send) ==
                        static_cast<const char*>(a.recv) + ctx.rank * a.count * ctx.element_bytes;
  const void* send = in_place ? MPI_IN_PLACE : a.send;
  MPI_Request r;
  CS_MPI(MPI_Iallgather(send, mpi_count(a), ctx.datatype, a.recv, mpi_count(a), ctx.datatype,
                        ctx.comm, &r));
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclAllGather(a.send, a.recv, a.count, ctx.datatype, ctx.comm, ctx.stream));
}
#endif

}  // namespace

const CollectiveCall& all_gather_call() {
  static const CollectiveCall call{"all_gather", nullptr, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
