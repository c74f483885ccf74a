#include "fabric/pod_devices.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <type_traits>

namespace commsweep::fabric {

namespace {

using nlohmann::json;

// domain:bus:device.function, with the domain optional (the plugin writes it, users may not).
bool looks_like_pci(const std::string& s) {
  static const std::regex pci("^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
  return std::regex_match(s, pci);
}

std::string normalise_pci(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s.size() == 7) s = "0000:" + s;
  return s;
}

// A field of one attachment: absent is the fallback; another type is named (nlohmann's value()
// would throw its own type_error, which ended `commsweep env` with an uncaught exception).
template <typename T>
T field_of(const json& net, const char* key, T fallback, const std::string& where) {
  const auto it = net.find(key);
  if (it == net.end() || it->is_null()) return fallback;
  if (std::is_same_v<T, bool> ? !it->is_boolean() : !it->is_string()) {
    throw PodDeviceError("network-status: " + where + " has \"" + key + "\": " + it->dump() +
                         (std::is_same_v<T, bool> ? ", not true or false" : ", not a string"));
  }
  return it->get<T>();
}

// The kernel's rule for an interface name (dev_valid_name): 1 to 15 bytes, not "." or "..",
// no '/', ':' or white space. The name reaches an export line and its comments.
bool valid_interface_name(const std::string& name) {
  if (name.empty() || name.size() > 15 || name == "." || name == "..") return false;
  return std::none_of(name.begin(), name.end(), [](unsigned char c) {
    return c == '/' || c == ':' || std::isspace(c) || std::iscntrl(c) || c > 126;
  });
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Walks the plugin's JSON: keys that are PCI addresses, and string values under keys that
// name one ("pci", "pci-address", "deviceID"), at any depth.
void collect_pci(const json& node, const std::string& origin, std::vector<PodPci>* out, int depth) {
  if (depth > 16) return;
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (looks_like_pci(key)) out->push_back({normalise_pci(key), origin, ""});
      if (value.is_string() && (key == "pci" || key == "pci-address" || key == "deviceID") &&
          looks_like_pci(value.get<std::string>()))
        out->push_back({normalise_pci(value.get<std::string>()), origin, ""});
      collect_pci(value, origin, out, depth + 1);
    }
  } else if (node.is_array()) {
    for (const auto& value : node) collect_pci(value, origin, out, depth + 1);
  }
}

std::vector<PodPci> unique(std::vector<PodPci> pcis) {
  std::vector<PodPci> out;
  std::set<std::string> seen;
  for (auto& p : pcis)
    if (seen.insert(p.pci_address).second) out.push_back(std::move(p));
  return out;
}

// Go's strconv.Quote form, as the downward API writes annotation values.
std::string go_unquote(const std::string& quoted, const std::string& what) {
  if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
    throw PodDeviceError(what + ": the value is not a quoted string");
  std::string out;
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    char c = quoted[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 2 >= quoted.size()) throw PodDeviceError(what + ": a backslash ends the value");
    c = quoted[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '"': case '\\': case '\'': out += c; break;
      case 'x': case 'u': {
        const size_t n = c == 'x' ? 2 : 4;
        if (i + n >= quoted.size()) throw PodDeviceError(what + ": a short \\" + c + " escape");
        unsigned long code = 0;
        for (size_t k = 1; k <= n; ++k) {
          const char h = quoted[i + k];
          if (!std::isxdigit(static_cast<unsigned char>(h)))
            throw PodDeviceError(what + ": a bad \\" + std::string(1, c) + " escape");
          code = code * 16 + static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
        }
        if (code < 0x80) out += static_cast<char>(code);  // JSON text: ASCII is all that matters
        i += n;
        break;
      }
      default: throw PodDeviceError(what + ": an unknown escape \\" + std::string(1, c));
    }
  }
  return out;
}

}  // namespace

std::vector<PodPci> parse_pcidevice(const std::string& variable, const std::string& value) {
  const std::string text = trim(value);
  std::vector<PodPci> out;
  if (text.empty()) return out;
  if (text.front() == '{' || text.front() == '[') {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception& e) {
      throw PodDeviceError(variable + ": not valid JSON (" + e.what() + ")");
    }
    collect_pci(doc, variable, &out, 0);
    if (out.empty()) throw PodDeviceError(variable + ": JSON without any PCI address");
    return unique(std::move(out));
  }
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    if (!looks_like_pci(item))
      throw PodDeviceError(variable + ": '" + item + "' is not a PCI address (0000:18:00.2)");
    out.push_back({normalise_pci(item), variable, ""});
  }
  return unique(std::move(out));
}

std::vector<PodPci> parse_network_status(const std::string& text, std::string* default_interface) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw PodDeviceError(std::string("network-status: not valid JSON (") + e.what() + ")");
  }
  if (!doc.is_array()) throw PodDeviceError("network-status: not a JSON list of attachments");
  std::vector<PodPci> out;
  for (const auto& net : doc) {
    if (!net.is_object()) throw PodDeviceError("network-status: an attachment is not an object");
    const std::string name = field_of<std::string>(net, "name", "?", "an attachment");
    const std::string where = "attachment " + name;
    const std::string iface = field_of<std::string>(net, "interface", "", where);
    if (!iface.empty() && !valid_interface_name(iface)) {
      throw PodDeviceError("network-status: " + where + " has interface " + json(iface).dump() +
                           ", not an interface name");
    }
    if (default_interface && field_of<bool>(net, "default", false, where) && !iface.empty()) {
      *default_interface = iface;
    }
    const auto info = net.find("device-info");
    if (info == net.end() || !info->is_object()) continue;
    const auto pci = info->find("pci");
    if (pci == info->end() || !pci->is_object()) continue;
    const std::string address = field_of<std::string>(*pci, "pci-address", "", where + " device-info.pci");
    if (!looks_like_pci(address))
      throw PodDeviceError("network-status: " + where + " has device-info.pci.pci-address " +
                           json(address).dump() + ", not a PCI address");
    // The origin reaches a '#' comment of the export lines: the attachment's name is shown
    // as JSON (quoted, escaped), never raw.
    out.push_back({normalise_pci(address), "network-status " + (iface.empty() ? json(name).dump() : iface), iface});
  }
  return unique(std::move(out));
}

std::vector<PodPci> parse_network_status_file(const std::string& text, std::string* default_interface) {
  static const std::string key = "k8s.v1.cni.cncf.io/network-status=";
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind(key, 0) != 0) continue;
    const std::string what = "annotations line " + std::to_string(number);
    return parse_network_status(go_unquote(trim(line.substr(key.size())), what), default_interface);
  }
  return {};
}

std::vector<PodPci> pcidevices_from_environment(char** envp) {
  std::vector<std::pair<std::string, std::string>> vars;
  for (char** e = envp; e && *e; ++e) {
    const std::string entry(*e);
    if (entry.rfind("PCIDEVICE_", 0) != 0) continue;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    vars.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  std::sort(vars.begin(), vars.end());
  std::vector<PodPci> out;
  for (const auto& [name, value] : vars) {
    auto some = parse_pcidevice(name, value);
    out.insert(out.end(), some.begin(), some.end());
  }
  return unique(std::move(out));
}

namespace {
PodHca hca_of(const RdmaDevice& dev, const RdmaPort& port, const std::string& origin) {
  PodHca h;
  h.device = dev.name;
  h.port = port.number;
  h.netdev = port.netdev;
  h.pci_address = dev.pci_address;
  h.origin = origin;
  h.gid_index = nccl_gid_index(port);
  h.roce = port.roce();
  h.active = port.active();
  return h;
}
}  // namespace

PodMapping map_to_rdma(const std::vector<PodPci>& pcis, const RdmaInventory& inventory) {
  PodMapping mapping;
  for (const auto& pci : pcis) {
    bool found = false;
    for (const auto& dev : inventory.devices) {
      if (dev.pci_address != pci.pci_address) continue;
      for (const auto& port : dev.ports) mapping.hcas.push_back(hca_of(dev, port, pci.origin));
      found = true;
    }
    if (!found) mapping.unmatched.push_back(pci);
  }
  return mapping;
}

PodMapping all_ports(const RdmaInventory& inventory) {
  PodMapping mapping;
  for (const auto& dev : inventory.devices)
    for (const auto& port : dev.ports) mapping.hcas.push_back(hca_of(dev, port, "sysfs"));
  return mapping;
}

std::vector<PodPci> pod_pci_addresses(char** envp, const std::optional<std::string>& annotations,
                                      std::string* default_interface) {
  std::vector<PodPci> pcis = pcidevices_from_environment(envp);
  if (!annotations) return pcis;
  for (auto& p : parse_network_status_file(*annotations, default_interface)) {
    bool seen = false;
    for (const auto& q : pcis) seen = seen || q.pci_address == p.pci_address;
    if (!seen) pcis.push_back(std::move(p));
  }
  return pcis;
}

}  // namespace commsweep::fabric
