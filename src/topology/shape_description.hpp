// A shape's compact description (topology/shapes/<shape>.json): CPUs and NUMA nodes, the PCI
// tree of switches, GPUs and NICs with their bus ids, NVLink counts, NIC names, ports and speeds,
// and the hints other parts need (GPU model and count, RDMA resource, NCCL settings). The
// topology XML and the nccl.conf of a shape are generated from it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace commsweep::topology {

struct NetPort {
  std::string name;  // mlx5_N
  int port = 1;
};

struct PciNode {
  std::string busid;                          // 0000:0f:00.0
  std::string kind;                           // switch | gpu | nic (from the template's class)
  std::map<std::string, std::string> attrs;   // class, vendor, device, ..., link_speed, link_width
  int gpu = -1;                               // the GPU's index, for a GPU
  std::vector<NetPort> nets;                  // the NIC's ports, for a NIC
  std::vector<PciNode> children;
};

struct NumaNode {
  int numaid = 0;
  std::string affinity;
  std::vector<PciNode> pci;
};

struct NcclSetting {
  std::string name, value, why;
};

struct ShapeDescription {
  std::string shape, summary;
  std::vector<std::string> sources, assumptions;
  struct Gpu {
    std::string model;
    std::vector<std::string> name_contains;  // every token appears in the driver's GPU name
    int count = 0;
    int sm = 0;
  } gpu;
  struct Nic {
    std::string model, link_layer;
    long speed_mbps = 0;
    long maxconn = 0;
  } nic;
  struct Rdma {
    std::string resource, note;
    int count = 0;
    std::vector<std::string> modes;
  } rdma;
  struct Cpu {
    std::string arch, vendor;
    int familyid = 0, modelid = 0;
  } cpu;
  std::string nvlink_tclass;
  std::vector<std::pair<std::string, int>> nvlink_targets;  // NVSwitch bus id, links per GPU
  std::vector<NumaNode> numa_nodes;
  std::vector<NcclSetting> nccl;

  // In document order: the RDMA device names (one per NIC, ports folded) and the GPU bus ids.
  std::vector<std::string> nic_names() const;
  std::vector<std::string> gpu_busids() const;
  int net_count() const;  // ports, i.e. NCCL net devices
};

// Throws commsweep::Error (usage) naming the source and the key at fault.
ShapeDescription parse_shape_description(const std::string& json_text, const std::string& source);

// The descriptions built into the binary from topology/shapes/*.json, by shape name.
const std::vector<std::pair<std::string, std::string>>& builtin_shape_texts();
std::vector<std::string> builtin_shape_names();

// The description of `shape`: from DIR/<shape>.json when a directory is given, else built in.
// Throws a usage Error listing the known shapes when there is none.
ShapeDescription load_shape(const std::string& shape, const std::string& directory = {});
// Every description: DIR/*.json when given, else the built-in ones.
std::vector<ShapeDescription> load_all_shapes(const std::string& directory = {});

}  // namespace commsweep::topology
