// What an NCCL call sees of the nccl backend (comm/collective_call.hpp): the communicator, the
// rank's stream, the element type and reduction in NCCL's terms, and the backend's check of
// every NCCL result against the phase's deadline (a failure ends the job where it is found).
#pragma once

#include <nccl.h>

#include "comm/collective_call.hpp"
#include "comm/nccl/nccl_backend.hpp"

namespace commsweep {

struct NcclCallContext {
  NcclBackend& backend;
  const Phase& phase;
  ncclComm_t comm;
  cudaStream_t stream;
  int rank;
  int size;
  ncclDataType_t datatype;
  ncclRedOp_t op;
  std::size_t element_bytes;
  void check(ncclResult_t rc, const char* call, const char* file, int line) const {
    backend.check(rc, call, file, line, phase);
  }
};

}  // namespace commsweep

// Checks one NCCL call of a CollectiveCall's nccl_issue (ctx is its NcclCallContext).
#define CS_NCCL_CALL(ctx, call) (ctx).check((call), #call, __FILE__, __LINE__)
