#include "fabric/nccl_env.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/strings.hpp"

namespace commsweep::fabric {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

bool entry_matches(const HcaList& list, const HcaList::Entry& e, const PodHca& h) {
  const bool name = list.exact ? h.device == e.device : h.device.rfind(e.device, 0) == 0;
  return name && (e.port < 0 || e.port == h.port);
}

std::string hca_names(const std::vector<PodHca>& hcas) {
  std::vector<std::string> names;
  for (const auto& h : hcas) names.push_back(h.device + ":" + std::to_string(h.port));
  return names.empty() ? "none" : join(names, ", ");
}

void check_user_hca(const std::map<std::string, std::string>& user, const std::vector<PodHca>& hcas,
                    EnvAdvice* advice) {
  const auto it = user.find("NCCL_IB_HCA");
  if (it == user.end()) return;
  const auto missing = hca_entries_missing(parse_hca_list(it->second), hcas);
  if (!missing.empty())
    advice->failures.push_back("NCCL_IB_HCA=" + it->second + " names " + join(missing, ", ") +
                               ", which this pod does not have (it has " + hca_names(hcas) + ")");
}

void check_user_ucx(const std::map<std::string, std::string>& user, const std::vector<PodHca>& hcas,
                    const std::vector<std::string>& netdevs, EnvAdvice* advice) {
  const auto it = user.find("UCX_NET_DEVICES");
  if (it == user.end() || it->second == "all") return;
  std::vector<std::string> missing;
  for (const auto& item : split(it->second, ',')) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    const std::string dev = item.substr(0, colon);
    const int port = colon == std::string::npos ? -1 : std::atoi(item.c_str() + colon + 1);
    const bool rdma = std::any_of(hcas.begin(), hcas.end(), [&](const PodHca& h) {
      return h.device == dev && (port < 0 || h.port == port);
    });
    const bool net = std::find(netdevs.begin(), netdevs.end(), dev) != netdevs.end();
    if (!rdma && !net) missing.push_back(item);
  }
  if (!missing.empty())
    advice->failures.push_back("UCX_NET_DEVICES=" + it->second + " names " + join(missing, ", ") +
                               ", which this pod does not have (it has " + hca_names(hcas) + ")");
}

void check_user_ifname(const std::map<std::string, std::string>& user,
                       const std::vector<std::string>& netdevs, EnvAdvice* advice) {
  const auto it = user.find("NCCL_SOCKET_IFNAME");
  if (it == user.end() || it->second.empty() || it->second[0] == '^') return;
  const bool exact = it->second[0] == '=';
  std::vector<std::string> missing;
  for (const auto& item : split(exact ? it->second.substr(1) : it->second, ',')) {
    if (item.empty()) continue;
    const bool found = std::any_of(netdevs.begin(), netdevs.end(), [&](const std::string& n) {
      return exact ? n == item : n.rfind(item, 0) == 0;
    });
    if (!found) missing.push_back(item);
  }
  if (!missing.empty())
    advice->failures.push_back("NCCL_SOCKET_IFNAME=" + it->second + " names " + join(missing, ", ") +
                               ", which this pod does not have (it has " + join(netdevs, ", ") + ")");
}

}  // namespace

HcaList parse_hca_list(const std::string& value) {
  HcaList list;
  std::string rest = value;
  if (!rest.empty() && rest[0] == '^') {
    list.exclude = true;
    rest.erase(0, 1);
  }
  if (!rest.empty() && rest[0] == '=') {
    list.exact = true;
    rest.erase(0, 1);
  }
  for (const auto& item : split(rest, ',')) {
    if (item.empty()) continue;
    HcaList::Entry e;
    const auto colon = item.find(':');
    e.device = item.substr(0, colon);
    if (colon != std::string::npos) e.port = std::atoi(item.c_str() + colon + 1);
    list.entries.push_back(e);
  }
  return list;
}

std::vector<std::string> hca_entries_missing(const HcaList& list, const std::vector<PodHca>& hcas) {
  std::vector<std::string> missing;
  if (list.exclude) return missing;
  for (const auto& e : list.entries) {
    const bool found = std::any_of(hcas.begin(), hcas.end(),
                                   [&](const PodHca& h) { return entry_matches(list, e, h); });
    if (!found) missing.push_back(e.device + (e.port >= 0 ? ":" + std::to_string(e.port) : ""));
  }
  return missing;
}

EnvAdvice advise_environment(const PodMapping& pod, const std::string& socket_ifname,
                             const std::vector<std::string>& netdevs,
                             const std::map<std::string, std::string>& user) {
  EnvAdvice advice;
  for (const auto& u : pod.unmatched)
    advice.notes.push_back(u.pci_address + " (" + u.origin + ") has no RDMA device in sysfs");
  std::vector<PodHca> use;
  for (const auto& h : pod.hcas)
    if (h.active) use.push_back(h);
    else advice.notes.push_back(h.device + ":" + std::to_string(h.port) + " is not ACTIVE: left out");
  if (use.empty()) {
    advice.notes.push_back(pod.hcas.empty() ? "no RDMA devices: NCCL will use TCP sockets (NET/Socket)"
                                            : "no ACTIVE RDMA port: NCCL will use TCP sockets");
  } else {
    std::set<std::string> devices;
    for (const auto& h : use) devices.insert(h.device);
    const bool ports = devices.size() != use.size() ||
                       std::any_of(use.begin(), use.end(), [](const PodHca& h) { return h.port != 1; });
    std::vector<std::string> nccl, ucx;
    for (const auto& h : use) {
      nccl.push_back(h.device + (ports ? ":" + std::to_string(h.port) : ""));
      ucx.push_back(h.device + ":" + std::to_string(h.port));
    }
    advice.exports.push_back({"NCCL_IB_HCA", "=" + join(nccl, ","),
                              "exact names ('='): a prefix such as mlx5_1 would also match mlx5_10"});
    advice.exports.push_back({"UCX_NET_DEVICES", join(ucx, ","), "the same ports for Open MPI's UCX"});
    std::set<int> gids;
    bool roce = false;
    for (const auto& h : use) {
      roce = roce || h.roce;
      if (h.gid_index) gids.insert(*h.gid_index);
    }
    if (roce && gids.size() == 1)
      advice.exports.push_back({"NCCL_IB_GID_INDEX", std::to_string(*gids.begin()),
                                "the RoCE v2 GID with an IPv4 address on every port"});
    else if (roce)
      advice.notes.push_back("the ports' RoCE v2 IPv4 GIDs are at different indexes: NCCL_IB_GID_INDEX "
                             "left to NCCL, which picks per port");
  }
  if (!socket_ifname.empty())
    advice.exports.push_back({"NCCL_SOCKET_IFNAME", "=" + socket_ifname,
                              "bootstrap and socket traffic on the pod's default interface"});
  check_user_hca(user, pod.hcas, &advice);
  check_user_ucx(user, pod.hcas, netdevs, &advice);
  check_user_ifname(user, netdevs, &advice);
  // A setting of the user's own that fits the pod is kept: the entrypoint's eval must not undo it.
  if (advice.failures.empty()) {
    auto& ex = advice.exports;
    ex.erase(std::remove_if(ex.begin(), ex.end(), [&](const EnvExport& e) {
               const auto it = user.find(e.name);
               if (it == user.end()) return false;
               advice.notes.push_back(e.name + " kept as set (" + it->second + "); commsweep would pick " + e.value);
               return true;
             }), ex.end());
  }
  return advice;
}

std::string default_route_interface(const SysfsRoot& root) {
  const auto table = root.read("/proc/net/route");
  if (!table) return "";
  std::istringstream in(*table);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string iface, destination;
    if (fields >> iface >> destination && destination == "00000000") return iface;
  }
  return "";
}

std::string shell_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string render_exports(const EnvAdvice& advice) {
  std::ostringstream out;
  for (const auto& n : advice.notes) out << "# " << n << "\n";
  for (const auto& e : advice.exports) {
    out << "# " << e.why << "\n";
    out << "export " << e.name << "=" << shell_quote(e.value) << "\n";
  }
  return out.str();
}

}  // namespace commsweep::fabric
