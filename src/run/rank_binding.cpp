#include "run/rank_binding.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "fabric/locality.hpp"
#include "runtime/gpu.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace {

// The hwloc GPU this rank uses: by the PCI bus id of its CUDA device where CUDA sees GPUs;
// else (a build without CUDA on a GPU machine) local rank modulo the GPUs hwloc lists.
int rank_gpu(const fabric::LocalityMap& map, int local_rank, std::string* why_not) {
  std::string why_none;
  if (visible_gpu_count(&why_none) > 0) {
    const GpuChoice gpu = choose_gpu(local_rank);
    const int index = fabric::find_gpu(map, gpu.pci_bus_id);
    if (index < 0) *why_not = "hwloc does not list GPU " + gpu.pci_bus_id;
    return index;
  }
  if (map.gpus.empty()) {
    *why_not = "no GPU (" + why_none + ")";
    return -1;
  }
  return local_rank % static_cast<int>(map.gpus.size());
}

}  // namespace

std::string bind_rank(BindMode mode, int local_rank) {
  if (mode == BindMode::None) return "";
  try {
    const fabric::LocalityMap map = fabric::read_locality();
    std::string why_not;
    const int index = rank_gpu(map, local_rank, &why_not);
    if (index < 0) return "not bound: " + why_not;
    const auto& gpu = map.gpus[static_cast<size_t>(index)];
    if (gpu.numa_node < 0) return "not bound: GPU " + gpu.pci + " has no single NUMA node";
    const std::string cpus = fabric::bind_to_numa_node(gpu.numa_node);
    return "GPU " + gpu.pci + ": NUMA " + std::to_string(gpu.numa_node) + ", CPUs " + cpus;
  } catch (const std::exception& e) {
    return std::string("not bound: ") + e.what();
  }
}

std::vector<std::string> gather_binding_lines(World& world, BindMode mode, const std::string& mine,
                                              double timeout_s) {
  std::vector<std::string> lines;
  if (mode == BindMode::None) return lines;
  const auto all = world.gather(mine, Phase{"binding report", Deadline::after(timeout_s)});
  if (world.rank() != 0) return lines;
  // Per host, the ranks that got the same answer on one line: "ranks 0, 1: not bound: no GPU".
  std::map<std::string, std::vector<std::pair<std::string, std::vector<int>>>> by_host;  // host -> (text, ranks)
  for (size_t r = 0; r < all.size(); ++r) {
    auto& groups = by_host[world.hosts_by_rank()[r]];
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == all[r]; });
    if (group == groups.end()) group = groups.insert(groups.end(), {all[r], {}});
    group->second.push_back(static_cast<int>(r));
  }
  for (const auto& [host, groups] : by_host) {
    std::string line = "# Binding (--bind auto), host " + host + ":";
    for (size_t i = 0; i < groups.size(); ++i) {
      const auto& [text, ranks] = groups[i];
      line += std::string(i ? ";" : "") + (ranks.size() > 1 ? " ranks " : " rank ");
      for (size_t k = 0; k < ranks.size(); ++k) line += (k ? ", " : "") + std::to_string(ranks[k]);
      line += ": " + text;
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace commsweep
