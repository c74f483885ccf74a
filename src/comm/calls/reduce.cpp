// reduce's backend calls: MPI_Ireduce, ncclReduce.
#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  const void* send = (a.send == a.recv && ctx.rank == a.root) ? MPI_IN_PLACE : a.send;
  MPI_Request r;
  CS_MPI(MPI_Ireduce(send, a.recv, mpi_count(a), ctx.datatype, ctx.op(), a.root, ctx.comm, &r));
  requests.push_back(r);
}

// Only the root receives the reduction (avg scales nothing elsewhere).
bool mpi_complete(MpiCallContext& ctx, const CollectiveArgs& a) { return ctx.rank == a.root; }

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclReduce(a.send, a.recv, a.count, ctx.datatype, ctx.op, a.root, ctx.comm,
                               ctx.stream));
}
#endif

}  // namespace

const CollectiveCall& reduce_call() {
  static const CollectiveCall call{"reduce", nullptr, mpi_issue, mpi_complete, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
