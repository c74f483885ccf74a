// sendrecv's backend calls: MPI_Irecv + MPI_Isend, grouped ncclSend + ncclRecv.
#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

// MPI may not send from a buffer it is receiving into: in place receives into a scratch buffer
// of the run, at one address; the in-place half is not verified (#wrong N/A).
void mpi_prepare(MpiCallContext& ctx, const CollectiveArgs& a) {
  if (a.send == a.recv) ctx.scratch.resize(a.count * ctx.element_bytes);
}

void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  void* recv = a.send == a.recv ? ctx.scratch.data() : a.recv;
  MPI_Request r, s;
  CS_MPI(MPI_Irecv(recv, mpi_count(a), ctx.datatype, a.recv_peer, 0, ctx.comm, &r));
  CS_MPI(MPI_Isend(a.send, mpi_count(a), ctx.datatype, a.send_peer, 0, ctx.comm, &s));
  requests.push_back(s);
  requests.push_back(r);
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclGroupStart());
  CS_NCCL_CALL(ctx, ncclSend(a.send, a.count, ctx.datatype, a.send_peer, ctx.comm, ctx.stream));
  CS_NCCL_CALL(ctx, ncclRecv(a.recv, a.count, ctx.datatype, a.recv_peer, ctx.comm, ctx.stream));
  CS_NCCL_CALL(ctx, ncclGroupEnd());
}
#endif

}  // namespace

const CollectiveCall& sendrecv_call() {
  static const CollectiveCall call{"sendrecv", mpi_prepare, mpi_issue, nullptr, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
