#include "nccl_policy/policy.hpp"

namespace commsweep::nccl_policy {

// The lsa dispatch's counts by NCCL's LL all-to-all (ncclLLA2A*), on the lsa device communicator.
const Path& ll_all_to_all_counts_path() {
  static const Path path{"ll_all_to_all_counts", 40, ll_all_to_all_counts,
                         "the counts' LL all-to-all needs the lsa device communicator"};
  return path;
}

}  // namespace commsweep::nccl_policy
