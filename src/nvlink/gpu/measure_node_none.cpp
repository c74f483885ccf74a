// The build without CUDA (-DCOMMSWEEP_CUDA=OFF or no toolkit): no GPU to measure; `commsweep
// nvlink` refuses before anything runs (run/nvlink_run.cpp), so measure_node is never reached.
#include "core/error.hpp"
#include "nvlink/gpu/measure_node.hpp"
#include "runtime/gpu.hpp"

namespace commsweep::p2p {

std::string why_no_gpu_here() {
  std::string why;
  visible_gpu_count(&why);
  return why;
}

std::string gpu_of_local_rank(int) { return ""; }

nvlink::RankPart measure_node(World&, const nvlink::NvlinkSettings&, FaultPoints&, WindowObserver*) {
  throw Error(ErrorKind::Runtime, "nvlink: this commsweep was built without CUDA: no GPU to measure");
}

}  // namespace commsweep::p2p
