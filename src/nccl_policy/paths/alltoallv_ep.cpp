#include "nccl_policy/policy.hpp"

namespace commsweep::nccl_policy {

// --ep-impl alltoallv: ncclSend / ncclRecv in groups, nccl.h calls only.
const Path& alltoallv_ep_path() {
  static const Path path{"alltoallv_ep", 20, host_api};
  return path;
}

}  // namespace commsweep::nccl_policy
