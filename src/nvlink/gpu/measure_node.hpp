// `commsweep nvlink`'s measurement on this rank (built with CUDA: measure_node.cpp; without:
// measure_node_none.cpp, which can only refuse): the node's ranks find each other, map each
// other's GPU memory (CUDA IPC), read their GPU's NVLinks (NVML, loaded at run time), run the
// node's tests (nvlink/gpu/node_tests.hpp) and read the NVLinks' counters again.
#pragma once

#include <string>

#include "nvlink/nvlink_json.hpp"
#include "nvlink/settings.hpp"
#include "runtime/world.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/window_observer.hpp"

namespace commsweep::p2p {

// Why this rank cannot take part ("" when it can): a build without CUDA, or no GPU visible.
std::string why_no_gpu_here();

// The PCI bus id of the GPU a rank of local rank LOCAL_RANK drives (the device the run set-up
// chooses: runtime/gpu.hpp), "" where there is none.
std::string gpu_of_local_rank(int local_rank);

// This rank's part (nvlink_json.hpp): its GPU and, on its node's first rank, the node's results.
// FAULTS: the named points the copies pass (sweep/fault_points.hpp); GPU_STATE (none: not read)
// reads the GPU around each pair's tests (nvlink/gpu/node_tests.hpp).
nvlink::RankPart measure_node(World& world, const nvlink::NvlinkSettings& settings, FaultPoints& faults,
                              WindowObserver* gpu_state = nullptr);

}  // namespace commsweep::p2p
