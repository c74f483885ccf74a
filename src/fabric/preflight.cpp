#include "fabric/preflight.hpp"

#include <cstdio>
#include <stdexcept>

#include "core/text_file.hpp"
#include "fabric/host_checks.hpp"
#include "fabric/locality.hpp"
#include "fabric/nccl_env.hpp"
#include "fabric/pod_devices.hpp"
#include "fabric/ucx_info.hpp"

namespace commsweep::fabric {

namespace {

std::string port_name(const RdmaDevice& d, const RdmaPort& p) { return d.name + ":" + std::to_string(p.number); }

std::string gid_list(const RdmaPort& p) {
  std::string out;
  for (const auto& g : p.gids)
    out += (out.empty() ? "" : "; ") + std::to_string(g.index) + " " + to_string(g.type) + (g.ipv4 ? " IPv4" : " IPv6");
  return out.empty() ? "none" : out;
}

std::string describe_port(const RdmaDevice& d, const RdmaPort& p) {
  std::string s = p.state + " " + p.phys_state + ", " + (p.roce() ? "RoCE (Ethernet)" : p.link_layer);
  if (!p.rate.empty()) s += ", " + p.rate;
  s += ", MTU " + (p.active_mtu ? std::to_string(p.active_mtu) : std::string("unknown"));
  s += ", PCI " + (d.pci_address.empty() ? std::string("?") : d.pci_address);
  s += ", NUMA " + std::to_string(d.numa_node);
  s += d.virtual_function ? ", VF of " + d.physfn : ", PF" + (d.sriov_numvfs ? " with " + std::to_string(d.sriov_numvfs) + " VFs" : std::string());
  if (!p.netdev.empty()) s += ", netdev " + p.netdev;
  if (!d.fw_ver.empty()) s += ", fw " + d.fw_ver;
  if (!d.node_guid.empty()) s += ", GUID " + d.node_guid;
  if (p.roce()) {
    s += ", GIDs " + gid_list(p);
    const auto gid = nccl_gid_index(p);
    if (gid) s += ", NCCL_IB_GID_INDEX " + std::to_string(*gid);
  }
  return s;
}

Check port_check(const RdmaDevice& d, const RdmaPort& p, const std::map<std::string, std::string>& env) {
  const std::string name = "rdma." + port_name(d, p);
  const std::string what = describe_port(d, p);
  if (!p.active())
    return warn(name, "port not ACTIVE: " + what, "check the cable and the switch port (ibstat " + d.name + ")");
  if (!p.roce()) return pass(name, what);
  const auto gid = nccl_gid_index(p);
  if (!gid)
    return warn(name, "no RoCE v2 GID with an IPv4 address: " + what,
                "give " + (p.netdev.empty() ? std::string("the port's netdev") : p.netdev) + " an IPv4 address");
  const auto user = env.find("NCCL_IB_GID_INDEX");
  if (user != env.end() && user->second != "-1") {
    const int index = std::atoi(user->second.c_str());
    const Gid* g = nullptr;
    for (const auto& x : p.gids)
      if (x.index == index) g = &x;
    if (!g)
      return fail(name, "NCCL_IB_GID_INDEX=" + user->second + " names no GID of this port: " + what,
                  "export NCCL_IB_GID_INDEX=" + std::to_string(*gid) + " (or unset it: NCCL picks it)");
    if (index != *gid)
      return warn(name, "NCCL_IB_GID_INDEX=" + user->second + " is a " + to_string(g->type) +
                            (g->ipv4 ? " IPv4" : " IPv6") + " GID: " + what,
                  "export NCCL_IB_GID_INDEX=" + std::to_string(*gid));
  }
  return pass(name, what);
}


std::vector<std::string> netdevs(const SysfsRoot& root) { return root.list("/sys/class/net"); }

}  // namespace

std::map<std::string, std::string> fabric_environment(char** envp) {
  std::map<std::string, std::string> env;
  for (char** e = envp; e && *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    for (const char* prefix : {"NCCL_", "UCX_", "PCIDEVICE_"})
      if (entry.rfind(prefix, 0) == 0) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

std::vector<Check> rdma_checks(const RdmaInventory& inv, const std::map<std::string, std::string>& env, bool live) {
  std::vector<Check> out;
  if (inv.devices.empty()) {
    out.push_back(warn("rdma.devices", "no RDMA devices (" + inv.looked_in +
                                           " is empty or absent): NCCL will use TCP sockets (NET/Socket) between nodes",
                       "on a multi-node job: request the RDMA devices (SR-IOV VFs or the RDMA shared device "
                       "plugin) or load mlx5_ib; a single node needs none"));
    return out;
  }
  out.push_back(pass("rdma.devices", std::to_string(inv.devices.size()) + " RDMA devices in " + inv.looked_in));
  if (live && !inv.verbs_used)
    out.push_back(warn("rdma.verbs", "libibverbs could open none of the devices sysfs lists",
                       "mount /dev/infiniband into the container and install the mlx5 provider (ibverbs-providers)"));
  for (const auto& d : inv.devices)
    for (const auto& p : d.ports) out.push_back(port_check(d, p, env));
  return out;
}

std::vector<Check> pod_checks(const SysfsRoot& root, const RdmaInventory& inv, char** envp,
                              const std::string& annotations_path) {
  std::vector<Check> out;
  std::vector<PodPci> pcis;
  std::string default_iface;
  const std::string path = annotations_path.empty() ? root.path("/etc/podinfo/annotations") : annotations_path;
  try {
    const auto text = read_text_file(path);
    pcis = pod_pci_addresses(envp, text, &default_iface);
    if (!text && !annotations_path.empty()) {
      out.push_back(fail("sriov", "--annotations " + path + " cannot be read", "give the downward-API file's path"));
    }
  } catch (const PodDeviceError& e) {
    out.push_back(fail("sriov", e.what(), "fix the device plugin's or Multus's configuration"));
    return out;
  }
  const PodMapping pod = pcis.empty() ? all_ports(inv) : map_to_rdma(pcis, inv);
  if (pcis.empty()) {
    out.push_back(pass("sriov", "no PCIDEVICE_* variables and no network-status: every RDMA device of the node is the pod's"));
  } else {
    std::string mapped;
    for (const auto& h : pod.hcas)
      mapped += (mapped.empty() ? "" : ", ") + h.pci_address + "=" + h.device + ":" + std::to_string(h.port);
    out.push_back(pass("sriov", std::to_string(pcis.size()) + " PCI addresses given to the pod" +
                                    (mapped.empty() ? "" : ": " + mapped)));
    for (const auto& u : pod.unmatched)
      out.push_back(fail("sriov." + u.pci_address, u.origin + " names " + u.pci_address + ", which has no RDMA device in sysfs",
                         "bind the VF to mlx5_core and, in exclusive RDMA netns mode, move its RDMA device into the pod"));
  }
  if (default_iface.empty()) default_iface = default_route_interface(root);
  const EnvAdvice advice = advise_environment(pod, default_iface, netdevs(root), fabric_environment(envp));
  for (const auto& f : advice.failures)
    out.push_back(fail("env", f, "unset it, or run eval \"$(commsweep env)\" in the entrypoint"));
  std::string exports;
  for (const auto& e : advice.exports) exports += (exports.empty() ? "" : " ") + e.name + "=" + shell_quote(e.value);
  if (advice.failures.empty())
    out.push_back(pass("env", exports.empty() ? "nothing to set (commsweep env)" : "commsweep env would set " + exports));
  return out;
}

nlohmann::json inventory_json(const RdmaInventory& inv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : inv.devices) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : d.ports) {
      nlohmann::json gids = nlohmann::json::array();
      for (const auto& g : p.gids)
        gids.push_back({{"index", g.index}, {"address", g.address}, {"type", to_string(g.type)},
                        {"ipv4", g.ipv4}, {"netdev", g.netdev}});
      const auto gid = nccl_gid_index(p);
      ports.push_back({{"port", p.number}, {"state", p.state}, {"phys_state", p.phys_state},
                       {"link_layer", p.link_layer}, {"rate", p.rate}, {"speed_gbps", p.speed_gbps},
                       {"width", p.width}, {"active_mtu", p.active_mtu}, {"netdev", p.netdev}, {"gids", gids},
                       {"nccl_gid_index", gid ? nlohmann::json(*gid) : nlohmann::json(nullptr)}});
    }
    devices.push_back({{"name", d.name}, {"node_guid", d.node_guid}, {"fw_ver", d.fw_ver},
                       {"pci_address", d.pci_address}, {"numa_node", d.numa_node},
                       {"virtual_function", d.virtual_function}, {"physfn", d.physfn},
                       {"sriov_numvfs", d.sriov_numvfs}, {"ports", ports}});
  }
  return devices;
}

NodeReport check_node(const PreflightOptions& options, char** envp) {
  const SysfsRoot root(options.sysfs_root);
  NodeReport node;
  const RdmaInventory inv = read_rdma_inventory(root);
  const auto env = fabric_environment(envp);
  node.inventory = inventory_json(inv);
  auto add = [&](std::vector<Check> more) { node.checks.insert(node.checks.end(), more.begin(), more.end()); };
  add(rdma_checks(inv, env, root.is_live()));
  add(pod_checks(root, inv, envp, options.annotations));
  add(judge_host(gather_host_facts(root), !inv.devices.empty()));
  if (!root.is_live()) {
    node.checks.push_back(pass("locality", "not checked: --sysfs-root is not / (hwloc reads the live machine)"));
    return node;
  }
  try {
    const LocalityMap map = read_locality();
    add(describe_locality(map));
    const auto hca = env.find("NCCL_IB_HCA");
    if (hca != env.end()) add(check_hca_order(map, parse_hca_list(hca->second)));
  } catch (const std::exception& e) {
    node.checks.push_back(warn("locality", e.what(), "install hwloc's data (libhwloc-plugins) or run lstopo to see why"));
  }
  if (!options.brief) node.checks.push_back(describe_ucx(read_ucx_info(envp)));
  return node;
}

nlohmann::json to_json(const NodeReport& node) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : node.checks)
    checks.push_back({{"check", c.name}, {"status", to_string(c.status)}, {"reason", c.reason},
                      {"fix", c.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.fix)}});
  return {{"host", node.host}, {"ranks", node.ranks}, {"checks", checks}, {"rdma_devices", node.inventory}};
}

NodeReport node_from_json(const nlohmann::json& doc) {
  NodeReport node;
  node.host = doc.at("host").get<std::string>();
  node.ranks = doc.at("ranks").get<int>();
  for (const auto& c : doc.at("checks"))
    node.checks.push_back({c.at("check").get<std::string>(), status_from_string(c.at("status").get<std::string>()),
                           c.at("reason").get<std::string>(), c.at("fix").is_null() ? "" : c.at("fix").get<std::string>()});
  node.inventory = doc.at("rdma_devices");
  return node;
}

Tally tally(const std::vector<NodeReport>& nodes) {
  Tally t;
  for (const auto& n : nodes)
    for (const auto& c : n.checks) (c.status == Status::Pass ? t.pass : c.status == Status::Warn ? t.warn : t.fail)++;
  return t;
}

nlohmann::json preflight_json(const std::vector<NodeReport>& nodes) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& n : nodes) hosts.push_back(to_json(n));
  const Tally t = tally(nodes);
  return {{"schema", "commsweep.preflight/1"},
          {"hosts", hosts},
          {"summary", {{"pass", t.pass}, {"warn", t.warn}, {"fail", t.fail}, {"ok", t.fail == 0}}}};
}

std::string to_string(Status status) {
  switch (status) {
    case Status::Pass: return "PASS";
    case Status::Warn: return "WARN";
    case Status::Fail: return "FAIL";
  }
  return "?";
}

Status status_from_string(const std::string& text) {
  if (text == "PASS") return Status::Pass;
  if (text == "WARN") return Status::Warn;
  if (text == "FAIL") return Status::Fail;
  throw std::invalid_argument("unknown status '" + text + "'");
}

}  // namespace commsweep::fabric
