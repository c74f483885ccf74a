// The RDMA devices of a node as sysfs shows them (/sys/class/infiniband, /sys/class/net,
// /sys/bus/pci), completed by libibverbs where real devices exist (verbs_inventory.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fabric/sysfs.hpp"

namespace commsweep::fabric {

enum class GidType { IB, RoCEv1, RoCEv2 };

struct Gid {
  int index = 0;
  std::string address;  // "fe80:0000:...", as sysfs prints it
  GidType type = GidType::IB;
  bool ipv4 = false;    // an IPv4-mapped address (::ffff:a.b.c.d)
  std::string netdev;   // gid_attrs/ndevs/<i> (RoCE only)
};

struct RdmaPort {
  int number = 1;
  std::string state;        // ACTIVE, DOWN, INIT...
  std::string phys_state;   // LinkUp, Disabled, Polling...
  std::string link_layer;   // InfiniBand or Ethernet (RoCE)
  std::string rate;         // "200 Gb/sec (4X HDR)"
  double speed_gbps = 0;    // the rate's figure
  int width = 0;            // lanes: 4 for "4X"
  int active_mtu = 0;       // bytes; 0 when unknown (an IB port without verbs)
  std::string netdev;
  std::vector<Gid> gids;

  bool roce() const { return link_layer == "Ethernet"; }
  bool active() const { return state == "ACTIVE"; }
};

struct RdmaDevice {
  std::string name;         // mlx5_0
  std::string node_guid;
  std::string fw_ver;
  std::string pci_address;  // 0000:0c:00.0
  int numa_node = -1;
  bool virtual_function = false;
  std::string physfn;       // the PF's PCI address, for a VF
  int sriov_numvfs = 0;     // VFs enabled on a PF
  std::vector<RdmaPort> ports;
};

struct RdmaInventory {
  std::vector<RdmaDevice> devices;
  // Where devices were looked for, for the plain "no RDMA devices" sentence.
  std::string looked_in;
  bool verbs_used = false;
};

RdmaInventory read_rdma_inventory(const SysfsRoot& root);

// The GID index NCCL picks on a RoCE port by itself: the first RoCE v2 GID with an IPv4
// address (NCCL_IB_ROCE_VERSION_NUM 2 and NCCL_IB_ADDR_FAMILY AF_INET are its defaults),
// else the first RoCE v2 GID that is not link-local. nullopt on IB ports and where none fits.
std::optional<int> nccl_gid_index(const RdmaPort& port);

std::string to_string(GidType type);
// "200 Gb/sec (4X HDR)" -> 200 and 4.
void parse_rate(const std::string& rate, double* gbps, int* width);
// The RDMA MTU the kernel derives from a netdev MTU for RoCE (the largest IB MTU that fits
// beside the RoCE v2 headers).
int roce_active_mtu(int netdev_mtu);

}  // namespace commsweep::fabric
