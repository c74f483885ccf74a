// alltoall's backend calls: MPI_Ialltoall; on NCCL grouped point-to-point, as nccl-tests
// measures it.
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
  CS_MPI(MPI_Ialltoall(send, mpi_count(a), ctx.datatype, a.recv, mpi_count(a), ctx.datatype,
                       ctx.comm, &r));
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
// Grouped point-to-point (every NCCL version has it): block `peer` to and from each peer.
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  const std::size_t block = a.count * ctx.element_bytes;
  CS_NCCL_CALL(ctx, ncclGroupStart());
  for (int peer = 0; peer < ctx.size; ++peer) {
    CS_NCCL_CALL(ctx, ncclSend(static_cast<const char*>(a.send) + peer * block, a.count,
                               ctx.datatype, peer, ctx.comm, ctx.stream));
    CS_NCCL_CALL(ctx, ncclRecv(static_cast<char*>(a.recv) + peer * block, a.count, ctx.datatype,
                               peer, ctx.comm, ctx.stream));
  }
  CS_NCCL_CALL(ctx, ncclGroupEnd());
}
#endif

}  // namespace

const CollectiveCall& alltoall_call() {
  static const CollectiveCall call{"alltoall", nullptr, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
