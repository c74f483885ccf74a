#include "fabric/locality.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace commsweep::fabric {

namespace {

struct Topology {
  hwloc_topology_t topo = nullptr;
  // xml: an hwloc XML export (lstopo --of xml) to read instead of the live machine.
  explicit Topology(bool io, const std::string& xml = "") {
    if (hwloc_topology_init(&topo) != 0) throw std::runtime_error("hwloc_topology_init failed");
    if (io) hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (!xml.empty() && hwloc_topology_set_xml(topo, xml.c_str()) != 0) {
      hwloc_topology_destroy(topo);
      throw std::runtime_error("hwloc cannot read the XML topology " + xml);
    }
    if (hwloc_topology_load(topo) != 0) {
      hwloc_topology_destroy(topo);
      throw std::runtime_error("hwloc_topology_load failed" + (xml.empty() ? std::string() : " on " + xml));
    }
  }
  ~Topology() { hwloc_topology_destroy(topo); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

std::string bitmap_list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (!set || hwloc_bitmap_list_asprintf(&text, set) < 0) return "";
  std::string out(text);
  std::free(text);
  return out;
}

std::string bus_id(hwloc_obj_t pci) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
                pci->attr->pcidev.dev, pci->attr->pcidev.func);
  return text;
}

Endpoint endpoint(hwloc_topology_t topo, hwloc_obj_t obj, std::string name, hwloc_obj_t pci) {
  Endpoint e;
  e.name = std::move(name);
  if (pci) e.pci = bus_id(pci);
  hwloc_obj_t cpu_side = hwloc_get_non_io_ancestor_obj(topo, obj);
  if (cpu_side) {
    e.cpuset = bitmap_list(cpu_side->cpuset);
    if (cpu_side->nodeset && hwloc_bitmap_weight(cpu_side->nodeset) == 1)
      e.numa_node = hwloc_bitmap_first(cpu_side->nodeset);
  }
  return e;
}

bool is_bridge(hwloc_obj_t o) { return o && o->type == HWLOC_OBJ_BRIDGE; }
bool is_host_bridge(hwloc_obj_t o) {
  return is_bridge(o) && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

int bridges_between(hwloc_obj_t from, hwloc_obj_t ancestor) {
  int n = 0;
  for (hwloc_obj_t o = from->parent; o && o != ancestor; o = o->parent)
    if (is_bridge(o)) ++n;
  return n;
}

// hwloc_get_common_ancestor_obj compares depths, and I/O objects have negative special depths:
// for two GPUs behind different host bridges it walks past the root (a null dereference).
// Walking the parent chains works for every object.
hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b) {
  std::vector<hwloc_obj_t> above_a;
  for (hwloc_obj_t o = a; o; o = o->parent) above_a.push_back(o);
  for (hwloc_obj_t o = b; o; o = o->parent)
    if (std::find(above_a.begin(), above_a.end(), o) != above_a.end()) return o;
  return nullptr;
}

PathType path_between(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b) {
  if (a == b) return PathType::Self;
  hwloc_obj_t common = common_ancestor(a, b);
  if (!common) return PathType::SYS;
  if (is_host_bridge(common)) return PathType::PHB;
  if (is_bridge(common))
    return bridges_between(a, common) + bridges_between(b, common) == 0 ? PathType::PIX : PathType::PXB;
  // Different host bridges: the same NUMA node, or across the CPU interconnect.
  hwloc_obj_t ca = hwloc_get_non_io_ancestor_obj(topo, a), cb = hwloc_get_non_io_ancestor_obj(topo, b);
  if (ca && cb && hwloc_bitmap_isequal(ca->nodeset, cb->nodeset)) return PathType::NODE;
  return PathType::SYS;
}

struct Found {
  hwloc_obj_t obj;  // the PCI device (GPU) or OS device (NIC)
  hwloc_obj_t pci;  // its PCI device, nullptr if none
};

}  // namespace

std::string to_string(PathType path) {
  switch (path) {
    case PathType::Self: return "X";
    case PathType::PIX: return "PIX";
    case PathType::PXB: return "PXB";
    case PathType::PHB: return "PHB";
    case PathType::NODE: return "NODE";
    case PathType::SYS: return "SYS";
  }
  return "?";
}

LocalityMap read_locality() { return read_locality(""); }

LocalityMap read_locality(const std::string& xml_path) {
  Topology t(true, xml_path);
  LocalityMap map;
  map.numa_nodes = hwloc_get_nbobjs_by_type(t.topo, HWLOC_OBJ_NUMANODE);
  std::vector<Found> gpus, nics;
  constexpr unsigned kNvidia = 0x10de;
  for (hwloc_obj_t p = hwloc_get_next_pcidev(t.topo, nullptr); p; p = hwloc_get_next_pcidev(t.topo, p))
    if (p->attr->pcidev.vendor_id == kNvidia && (p->attr->pcidev.class_id >> 8) == 0x03)
      gpus.push_back({p, p});
  std::vector<Found> networks;
  for (hwloc_obj_t o = hwloc_get_next_osdev(t.topo, nullptr); o; o = hwloc_get_next_osdev(t.topo, o)) {
    hwloc_obj_t pci = o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE ? o->parent : nullptr;
    if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) nics.push_back({o, pci});
    if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) networks.push_back({o, pci});
  }
  nics.insert(nics.end(), networks.begin(), networks.end());
  for (size_t i = 0; i < gpus.size(); ++i)
    map.gpus.push_back(endpoint(t.topo, gpus[i].obj, "GPU" + std::to_string(i), gpus[i].pci));
  for (const auto& n : nics) map.nics.push_back(endpoint(t.topo, n.obj, n.obj->name ? n.obj->name : "?", n.pci));
  for (const auto& g : gpus) {
    std::vector<PathType> row_g, row_n;
    for (const auto& h : gpus) row_g.push_back(path_between(t.topo, g.obj, h.obj));
    for (const auto& n : nics)
      row_n.push_back(n.pci ? path_between(t.topo, g.obj, n.pci) : PathType::SYS);
    map.gpu_gpu.push_back(row_g);
    map.gpu_nic.push_back(row_n);
  }
  return map;
}

namespace {
// "00000000:19:00.0" (CUDA) and "0000:19:00.0" (hwloc) name one device: compare the numbers.
bool parse_pci(const std::string& text, unsigned long out[4]) {
  char tail = 0;
  return std::sscanf(text.c_str(), "%lx:%lx:%lx.%lx%c", &out[0], &out[1], &out[2], &out[3], &tail) == 4;
}
}  // namespace

int find_gpu(const LocalityMap& map, const std::string& pci) {
  unsigned long want[4];
  if (!parse_pci(pci, want)) return -1;
  for (size_t i = 0; i < map.gpus.size(); ++i) {
    unsigned long have[4];
    if (parse_pci(map.gpus[i].pci, have) && std::equal(want, want + 4, have)) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> nearest_nics(const LocalityMap& map, size_t gpu) {
  std::vector<std::string> out;
  if (gpu >= map.gpu_nic.size() || map.gpu_nic[gpu].empty()) return out;
  const auto& row = map.gpu_nic[gpu];
  const PathType best = *std::min_element(row.begin(), row.end());
  for (size_t n = 0; n < row.size(); ++n)
    if (row[n] == best) out.push_back(map.nics[n].name);
  return out;
}

std::string render_matrix(const LocalityMap& map) {
  std::string out = "        ";
  auto cell = [](const std::string& s) {
    return s + std::string(s.size() < 8 ? 8 - s.size() : 1, ' ');
  };
  for (const auto& g : map.gpus) out += cell(g.name);
  for (const auto& n : map.nics) out += cell(n.name);
  out += cell("NUMA") + "CPUs\n";
  for (size_t i = 0; i < map.gpus.size(); ++i) {
    out += cell(map.gpus[i].name);
    for (auto p : map.gpu_gpu[i]) out += cell(to_string(p));
    for (auto p : map.gpu_nic[i]) out += cell(to_string(p));
    out += cell(map.gpus[i].numa_node < 0 ? "N/A" : std::to_string(map.gpus[i].numa_node)) +
           map.gpus[i].cpuset + "\n";
  }
  out += "Legend: X self, PIX one PCIe bridge, PXB several PCIe bridges, PHB a PCIe host bridge, "
         "NODE across host bridges of one NUMA node, SYS across NUMA nodes (the CPU interconnect); "
         "PCI paths only: NVLink is not shown (nvidia-smi topo -m's NV#)\n";
  return out;
}

std::vector<Check> check_hca_order(const LocalityMap& map, const HcaList& hcas) {
  std::vector<Check> out;
  if (hcas.exclude || hcas.entries.empty()) return out;
  for (size_t g = 0; g < map.gpus.size(); ++g) {
    const auto near = nearest_nics(map, g);
    const std::string& first = hcas.entries.front().device;
    const auto known = std::find_if(map.nics.begin(), map.nics.end(),
                                    [&](const Endpoint& e) { return e.name == first; });
    if (near.empty() || known == map.nics.end()) continue;
    if (std::find(near.begin(), near.end(), first) != near.end()) continue;
    std::string list;
    for (const auto& n : near) list += (list.empty() ? "" : ",") + n;
    out.push_back(warn("locality." + map.gpus[g].name,
                       "NCCL_IB_HCA lists " + first + " first, not one of the NICs nearest " + map.gpus[g].name +
                           " (" + list + ")",
                       "list the nearest NICs first, or leave NCCL_IB_HCA to the topology file"));
  }
  return out;
}

std::vector<Check> describe_locality(const LocalityMap& map) {
  std::vector<Check> out;
  for (size_t g = 0; g < map.gpus.size(); ++g) {
    std::string near;
    for (const auto& n : nearest_nics(map, g)) near += (near.empty() ? "" : ",") + n;
    const auto& e = map.gpus[g];
    out.push_back(pass("locality." + e.name, e.pci + ": NUMA " + std::to_string(e.numa_node) + ", CPUs " +
                                                 e.cpuset + ", nearest NICs " + (near.empty() ? "none" : near)));
  }
  if (map.gpus.empty()) {
    for (const auto& e : map.nics)
      out.push_back(pass("locality." + e.name, (e.pci.empty() ? "not on PCI" : e.pci) + ": NUMA " +
                                                   std::to_string(e.numa_node) + ", CPUs " + e.cpuset +
                                                   " (no GPUs: NICs only)"));
    if (map.nics.empty()) out.push_back(pass("locality", "no GPUs and no NICs visible to hwloc"));
  }
  return out;
}

namespace {
// The process's binding, read through a topology already loaded: loading one costs more than
// the binding itself (hwloc walks the whole machine).
std::string cpu_binding(hwloc_topology_t topo) {
  std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> set(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  if (hwloc_get_cpubind(topo, set.get(), HWLOC_CPUBIND_PROCESS) != 0)
    throw std::runtime_error("hwloc_get_cpubind failed");
  return bitmap_list(set.get());
}
}  // namespace

std::string bind_to_numa_node(int node) {
  Topology t(false);
  hwloc_obj_t numa = hwloc_get_numanode_obj_by_os_index(t.topo, static_cast<unsigned>(node));
  if (!numa) throw std::runtime_error("NUMA node " + std::to_string(node) + " does not exist on this machine");
  if (hwloc_set_cpubind(t.topo, numa->cpuset, HWLOC_CPUBIND_PROCESS) != 0)
    throw std::runtime_error("hwloc_set_cpubind to NUMA node " + std::to_string(node) + " (CPUs " +
                             bitmap_list(numa->cpuset) + ") failed");
  return cpu_binding(t.topo);  // the topology just used: no second load
}

std::string current_cpu_binding() {
  Topology t(false);
  return cpu_binding(t.topo);
}

}  // namespace commsweep::fabric
