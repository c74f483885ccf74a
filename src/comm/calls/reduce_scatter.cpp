// reduce_scatter's backend calls: MPI_Ireduce_scatter_block, ncclReduceScatter.
#include <cstring>

#include "comm/collective_call.hpp"
#include "runtime/mpi_check.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_call.hpp"
#endif

namespace commsweep {
namespace {

// NCCL's in place: the receive buffer is this rank's block of the send buffer.
bool in_place(const MpiCallContext& ctx, const CollectiveArgs& a) {
  return static_cast<const char*>(a.recv) ==
         static_cast<const char*>(a.send) + ctx.rank * a.count * ctx.element_bytes;
}

void mpi_issue(MpiCallContext& ctx, const CollectiveArgs& a, std::vector<MPI_Request>& requests) {
  MPI_Request r;
  // In place, MPI wants MPI_IN_PLACE and the result at the start of the buffer; a staging copy
  // would distort the timing, so reduce in place into the send buffer and move this rank's
  // block where NCCL would leave it (mpi_complete).
  if (in_place(ctx, a)) {
    CS_MPI(MPI_Ireduce_scatter_block(MPI_IN_PLACE, const_cast<void*>(a.send), mpi_count(a),
                                     ctx.datatype, ctx.op(), ctx.comm, &r));
  } else {
    CS_MPI(MPI_Ireduce_scatter_block(a.send, a.recv, mpi_count(a), ctx.datatype, ctx.op(),
                                     ctx.comm, &r));
  }
  requests.push_back(r);
}

bool mpi_complete(MpiCallContext& ctx, const CollectiveArgs& a) {
  if (in_place(ctx, a) && ctx.rank != 0) std::memmove(a.recv, a.send, a.count * ctx.element_bytes);
  return true;
}

#if COMMSWEEP_HAVE_NCCL_BACKEND
void nccl_issue(const NcclCallContext& ctx, const CollectiveArgs& a) {
  CS_NCCL_CALL(ctx, ncclReduceScatter(a.send, a.recv, a.count, ctx.datatype, ctx.op, ctx.comm,
                                      ctx.stream));
}
#endif

}  // namespace

const CollectiveCall& reduce_scatter_call() {
  static const CollectiveCall call{"reduce_scatter", nullptr, mpi_issue, mpi_complete, COMMSWEEP_NCCL_ISSUE(nccl_issue)};
  return call;
}

}  // namespace commsweep
