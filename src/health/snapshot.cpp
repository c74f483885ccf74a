#include "health/snapshot.hpp"

#include <chrono>

#include "health/gpu_reader.hpp"
#include "health/pcie_reader.hpp"
#include "health/rdma_reader.hpp"

namespace commsweep::health {

Snapshot take_snapshot(const Tree& tree, NvmlApi* nvml, const std::string& host, const std::string& label) {
  Snapshot s;
  s.host = host;
  s.label = label;
  s.taken_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  s.ports = read_rdma_ports(tree);
  s.pcie = read_pcie_links(tree);
  if (!tree.exists("/sys/class/infiniband")) s.unread.push_back("RDMA ports: " + tree.path("/sys/class/infiniband") + " missing (no RDMA devices in this node or pod)");
  for (const auto& p : s.ports)
    for (const auto& u : p.unread) s.unread.push_back(p.component() + " " + u);
  for (const auto& l : s.pcie)
    for (const auto& u : l.unread) s.unread.push_back("PCIe " + l.address + " (" + l.role + ") " + u);
  if (!nvml) {
    s.nvml_note = "GPUs not read (NVML not asked for)";
  } else if (!nvml->unavailable().empty()) {
    s.nvml_note = nvml->unavailable();
  } else {
    s.gpus = read_gpus(*nvml);
    s.xids = drain_xid_events(*nvml, &s.unread);
    for (const auto& g : s.gpus)
      for (const auto& u : g.unread) s.unread.push_back(g.component() + " " + u);
  }
  return s;
}

}  // namespace commsweep::health
