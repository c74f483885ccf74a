// Whether this build has NCCL's device API (nccl_device.h, NCCL 2.28 or later): one test for
// the kernels that use it (ep_lsa.cu), their host side (src/ep/gpu/lsa_exchange.cpp) and the NCCL
// version policy's input (src/comm/nccl: nccl_policy::Versions::device_api_built).
#pragma once

#include <nccl.h>

#if __has_include(<nccl_device.h>) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#include <nccl_device.h>
#define COMMSWEEP_NCCL_DEVICE_API 1
#else
#define COMMSWEEP_NCCL_DEVICE_API 0
#endif

namespace commsweep::kernels {

inline constexpr bool kNcclDeviceApiBuilt = COMMSWEEP_NCCL_DEVICE_API != 0;

}  // namespace commsweep::kernels
