#include "nccl_policy/policy.hpp"

namespace commsweep::nccl_policy {

// The collectives: nccl.h calls only (a refusal ends the run when the nccl backend starts).
const Path& host_collectives_path() {
  static const Path path{"host_collectives", 10, host_api};
  return path;
}

}  // namespace commsweep::nccl_policy
