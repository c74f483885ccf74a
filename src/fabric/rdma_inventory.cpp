#include "fabric/rdma_inventory.hpp"

#include <cstdlib>
#include <sstream>

#include "fabric/verbs_inventory.hpp"

namespace commsweep::fabric {

namespace {

int to_int(const std::optional<std::string>& text, int fallback) {
  if (!text || text->empty()) return fallback;
  char* end = nullptr;
  const long v = std::strtol(text->c_str(), &end, 10);
  return end == text->c_str() ? fallback : static_cast<int>(v);
}

bool zero_gid(const std::string& address) {
  for (char c : address)
    if (c != '0' && c != ':') return false;
  return true;
}

std::vector<Gid> read_gids(const SysfsRoot& root, const std::string& port_dir) {
  std::vector<Gid> gids;
  for (const auto& index : root.list(port_dir + "/gids")) {
    const auto address = root.read(port_dir + "/gids/" + index);
    if (!address || zero_gid(*address)) continue;  // unused slots read as all zeros
    Gid gid;
    gid.index = to_int(index, -1);
    gid.address = *address;
    // 0000:0000:0000:0000:0000:ffff:xxxx:xxxx is an IPv4-mapped address.
    gid.ipv4 = address->rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0;
    const auto type = root.read(port_dir + "/gid_attrs/types/" + index);
    gid.type = type && type->find("v2") != std::string::npos ? GidType::RoCEv2 : GidType::RoCEv1;
    gid.netdev = root.read(port_dir + "/gid_attrs/ndevs/" + index).value_or("");
    gids.push_back(gid);
  }
  return gids;
}

// The netdev whose PCI function is this device's (first by name), and its MTU.
std::string netdev_of(const SysfsRoot& root, const std::string& pci, int* mtu) {
  for (const auto& name : root.list("/sys/class/net")) {
    if (root.link_name("/sys/class/net/" + name + "/device") != pci) continue;
    *mtu = to_int(root.read("/sys/class/net/" + name + "/mtu"), 0);
    return name;
  }
  return "";
}

RdmaPort read_port(const SysfsRoot& root, const std::string& dev_dir, const std::string& number,
                   const std::string& pci) {
  const std::string dir = dev_dir + "/ports/" + number;
  RdmaPort port;
  port.number = to_int(number, 1);
  port.state = strip_code(root.read(dir + "/state").value_or("unknown"));
  port.phys_state = strip_code(root.read(dir + "/phys_state").value_or("unknown"));
  port.link_layer = root.read(dir + "/link_layer").value_or("unknown");
  port.rate = root.read(dir + "/rate").value_or("");
  parse_rate(port.rate, &port.speed_gbps, &port.width);
  port.gids = read_gids(root, dir);
  // An IB port's types file also says "IB/RoCE v1": the link layer decides.
  if (!port.roce())
    for (auto& gid : port.gids) gid.type = GidType::IB;
  int mtu = 0;
  port.netdev = netdev_of(root, pci, &mtu);
  for (const auto& gid : port.gids)
    if (!gid.netdev.empty()) {
      port.netdev = gid.netdev;
      mtu = to_int(root.read("/sys/class/net/" + gid.netdev + "/mtu"), mtu);
      break;
    }
  if (port.roce() && mtu > 0) port.active_mtu = roce_active_mtu(mtu);
  return port;
}

RdmaDevice read_device(const SysfsRoot& root, const std::string& name) {
  const std::string dir = "/sys/class/infiniband/" + name;
  RdmaDevice dev;
  dev.name = name;
  dev.node_guid = root.read(dir + "/node_guid").value_or("");
  dev.fw_ver = root.read(dir + "/fw_ver").value_or("");
  dev.pci_address = root.link_name(dir + "/device").value_or("");
  const std::string pci_dir = "/sys/bus/pci/devices/" + dev.pci_address;
  dev.numa_node = to_int(root.read(dir + "/device/numa_node"),
                         to_int(root.read(pci_dir + "/numa_node"), -1));
  dev.physfn = root.link_name(pci_dir + "/physfn").value_or("");
  dev.virtual_function = !dev.physfn.empty();
  dev.sriov_numvfs = to_int(root.read(pci_dir + "/sriov_numvfs"), 0);
  for (const auto& number : root.list(dir + "/ports"))
    dev.ports.push_back(read_port(root, dir, number, dev.pci_address));
  return dev;
}

}  // namespace

RdmaInventory read_rdma_inventory(const SysfsRoot& root) {
  RdmaInventory inventory;
  inventory.looked_in = root.path("/sys/class/infiniband");
  for (const auto& name : root.list("/sys/class/infiniband"))
    inventory.devices.push_back(read_device(root, name));
  // Verbs knows what sysfs does not show (an IB port's active MTU); only on the live machine.
  if (root.is_live() && !inventory.devices.empty())
    inventory.verbs_used = complete_with_verbs(&inventory.devices);
  return inventory;
}

std::optional<int> nccl_gid_index(const RdmaPort& port) {
  if (!port.roce()) return std::nullopt;
  for (const auto& gid : port.gids)
    if (gid.type == GidType::RoCEv2 && gid.ipv4) return gid.index;
  for (const auto& gid : port.gids)
    if (gid.type == GidType::RoCEv2 && gid.address.rfind("fe80:", 0) != 0) return gid.index;
  return std::nullopt;
}

std::string to_string(GidType type) {
  switch (type) {
    case GidType::IB: return "IB";
    case GidType::RoCEv1: return "RoCE v1";
    case GidType::RoCEv2: return "RoCE v2";
  }
  return "?";
}

void parse_rate(const std::string& rate, double* gbps, int* width) {
  *gbps = 0;
  *width = 0;
  std::istringstream in(rate);
  in >> *gbps;
  if (!in) *gbps = 0;
  const auto open = rate.find('(');
  if (open != std::string::npos) *width = std::atoi(rate.c_str() + open + 1);
}

int roce_active_mtu(int netdev_mtu) {
  // GRH 40 + BTH 12 + the largest extended headers 28 + ICRC 4 + UDP 8 bytes, as the kernel
  // reserves before choosing an IB MTU for a RoCE port.
  constexpr int kHeaders = 40 + 12 + 28 + 4 + 8;
  int best = 0;
  for (int mtu : {256, 512, 1024, 2048, 4096})
    if (mtu <= netdev_mtu - kHeaders) best = mtu;
  return best;
}

}  // namespace commsweep::fabric
