// all_reduce's backend calls: MPI_Iallreduce, ncclAllReduce.
#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  const void* send = a.send == a.recv ? MPI_IN_PLACE : a.send;
  MPI_Request r;
  CS_MPI(MPI_Iallreduce(send, a.recv, mpi_count(a), ctx.datatype, ctx.op(), ctx.comm, &r));
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclAllReduce(a.send, a.recv, a.count, ctx.datatype, ctx.op, ctx.comm,
                                  ctx.stream));
}
#endif

}  // namespace

const CollectiveCall& all_reduce_call() {
  static const CollectiveCall call{"all_reduce", nullptr, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
