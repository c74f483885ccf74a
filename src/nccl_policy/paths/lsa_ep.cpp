#include "nccl_policy/policy.hpp"

namespace commsweep::nccl_policy {

// --ep-impl lsa: a device communicator, symmetric windows and kernels on nccl_device.h.
const Path& lsa_ep_path() {
  static const Path path{"lsa_ep", 30, device_api};
  return path;
}

}  // namespace commsweep::nccl_policy
