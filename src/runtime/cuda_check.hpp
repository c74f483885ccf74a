#pragma once

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace commsweep::detail {
[[noreturn]] void throw_cuda(cudaError_t code, const char* call, const char* file, int line);
}

#define CS_CUDA(call)                                                              \
  do {                                                                             \
    const cudaError_t cs_cuda_rc_ = (call);                                        \
    if (cs_cuda_rc_ != cudaSuccess) {                                              \
      ::commsweep::detail::throw_cuda(cs_cuda_rc_, #call, __FILE__, __LINE__);     \
    }                                                                              \
  } while (0)
