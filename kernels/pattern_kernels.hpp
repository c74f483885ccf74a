// Device-side fill, poison and verification of sweep buffers (kernels/pattern.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "pattern/pattern.hpp"

namespace commsweep::kernels {

struct DeviceMismatch {
  unsigned long long wrong;
  unsigned long long first_index;  // ~0ull when none
};

cudaError_t launch_fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank,
                        cudaStream_t stream);
cudaError_t launch_poison(void* buffer, std::size_t count, const pattern::Expect& expect,
                          cudaStream_t stream);
// Accumulates into *result (device memory, zeroed / first_index = ~0 by the caller).
cudaError_t launch_verify(const void* buffer, std::size_t count, const pattern::Expect& expect,
                          DeviceMismatch* result, cudaStream_t stream);

}  // namespace commsweep::kernels
