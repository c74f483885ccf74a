#include "nvlink/gpu/measure_node.hpp"

#include <memory>

#include "health/nvml_loader.hpp"
#include "nvlink/gpu_links.hpp"
#include "nvlink/gpu/node_tests.hpp"
#include "runtime/gpu.hpp"

namespace commsweep::p2p {
namespace {

nvlink::Gpu this_gpu(const World& world, int index) {
  nvlink::Gpu g;
  g.index = index;
  g.rank = world.rank();
  const GpuChoice in_use = current_gpu();
  g.device = in_use.device;
  g.name = in_use.name;
  g.pci_bus_id = in_use.pci_bus_id;
  return g;
}

void read_links(health::NvmlApi& nvml, nvlink::Gpu& g, bool after) {
  nvlink::LinkReading r = nvlink::read_gpu_links(nvml, g.pci_bus_id);
  if (after) {
    g.after = std::move(r.links);
    return;
  }
  g.before = std::move(r.links);
  g.nvlinks_active = r.active;
  g.nvlink_version = r.version;
  g.nvlink_speed_mbps = r.speed_mbps;
  g.nvlinks_present = r.present;
  g.nvml_note = r.note;
}

}  // namespace

std::string why_no_gpu_here() {
  std::string why;
  return visible_gpu_count(&why) > 0 ? "" : why;
}

std::string gpu_of_local_rank(int local_rank) {
  return visible_gpu_count(nullptr) > 0 ? planned_gpu_bus_id(local_rank) : "";
}

nvlink::RankPart measure_node(World& world, const nvlink::NvlinkSettings& s, FaultPoints& faults,
                              WindowObserver* gpu_state) {
  NodeGroup group(world);
  nvlink::RankPart part;
  part.gpu = this_gpu(world, group.rank());
  const std::unique_ptr<health::NvmlApi> nvml = health::load_nvml();
  read_links(*nvml, part.gpu, false);

  const Phase phase{"nvlink: mapping the node's GPU memory (CUDA IPC)", Deadline::after(s.timeout_s)};
  PeerWindow window(group, s.bytes, phase);
  CopyStreams streams(part.gpu.device, group.size());
  NodeTests tests(group, window, streams, s, faults, gpu_state);
  std::vector<nvlink::PairResult> pairs = tests.pairs();
  std::vector<nvlink::TargetResult> targets = tests.targets();
  if (group.rank() == 0) {
    part.pairs = std::move(pairs);
    part.targets = std::move(targets);
  }
  read_links(*nvml, part.gpu, true);
  return part;
}

}  // namespace commsweep::p2p
