#include "topology/shape_description.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/text_file.hpp"
#include "core/error.hpp"

namespace commsweep::topology {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& source, const std::string& where, const std::string& why) {
  throw Error(ErrorKind::Usage, source + ": " + where + ": " + why);
}

const json& need(const json& j, const char* key, const std::string& source, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(source, where, std::string("missing \"") + key + "\"");
  return j.at(key);
}

template <typename T>
T get(const json& j, const char* key, const std::string& source, const std::string& where) {
  const json& v = need(j, key, source, where);
  try {
    return v.get<T>();
  } catch (const json::exception&) {
    bad(source, where + "." + key, "wrong type (" + std::string(v.type_name()) + ")");
  }
}

bool valid_busid(const std::string& b) {
  static const std::regex form("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
  return std::regex_match(b, form);
}

std::string kind_of_class(const std::string& pci_class) {
  if (pci_class.rfind("0x0604", 0) == 0) return "switch";
  if (pci_class.rfind("0x03", 0) == 0) return "gpu";
  if (pci_class.rfind("0x02", 0) == 0 || pci_class.rfind("0x0207", 0) == 0) return "nic";
  return "other";
}

struct Context {
  const std::string& source;
  std::map<std::string, std::map<std::string, std::string>> templates;
  std::set<std::string> busids;
};

PciNode parse_pci(const json& j, Context& c, const std::string& where, int depth) {
  if (depth > 16) bad(c.source, where, "PCI tree deeper than 16");
  PciNode n;
  n.busid = get<std::string>(j, "bus", c.source, where);
  const std::string here = where + "(" + n.busid + ")";
  if (!valid_busid(n.busid)) bad(c.source, here, "bus id must look like 0000:0f:00.0 (lower case)");
  if (!c.busids.insert(n.busid).second) bad(c.source, here, "bus id appears twice");
  const auto t = get<std::string>(j, "t", c.source, here);
  const auto found = c.templates.find(t);
  if (found == c.templates.end()) bad(c.source, here, "unknown PCI template '" + t + "'");
  n.attrs = found->second;
  n.kind = kind_of_class(n.attrs["class"]);
  if (n.kind == "gpu") {
    n.gpu = get<int>(j, "gpu", c.source, here);
  } else if (n.kind == "nic") {
    for (const auto& p : need(j, "nets", c.source, here)) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_number_integer()) {
        bad(c.source, here + ".nets", "each port is [\"mlx5_N\", port]");
      }
      n.nets.push_back({p[0].get<std::string>(), p[1].get<int>()});
    }
    if (n.nets.empty()) bad(c.source, here, "a NIC without ports");
  } else if (j.contains("children")) {
    int i = 0;
    for (const auto& child : j.at("children")) {
      n.children.push_back(parse_pci(child, c, here + ".children[" + std::to_string(i++) + "]", depth + 1));
    }
  }
  return n;
}

void parse_templates(const json& j, Context& c) {
  for (const auto& [name, t] : need(j, "pci_templates", c.source, "top").items()) {
    const std::string where = "pci_templates." + name;
    auto& attrs = c.templates[name];
    for (const char* key : {"class", "vendor", "device", "subsystem_vendor", "subsystem_device", "link_speed"}) {
      attrs[key] = get<std::string>(t, key, c.source, where);
    }
    attrs["link_width"] = std::to_string(get<int>(t, "link_width", c.source, where));
  }
}

void parse_header(const json& j, ShapeDescription& d, const std::string& s) {
  d.shape = get<std::string>(j, "shape", s, "top");
  d.summary = get<std::string>(j, "summary", s, "top");
  d.sources = get<std::vector<std::string>>(j, "sources", s, "top");
  d.assumptions = get<std::vector<std::string>>(j, "assumptions", s, "top");
  const json& g = need(j, "gpu", s, "top");
  d.gpu.model = get<std::string>(g, "model", s, "gpu");
  d.gpu.name_contains = get<std::vector<std::string>>(g, "name_contains", s, "gpu");
  d.gpu.count = get<int>(g, "count", s, "gpu");
  d.gpu.sm = get<int>(g, "sm", s, "gpu");
  const json& n = need(j, "nic", s, "top");
  d.nic.model = get<std::string>(n, "model", s, "nic");
  d.nic.link_layer = get<std::string>(n, "link_layer", s, "nic");
  d.nic.speed_mbps = get<long>(n, "speed_mbps", s, "nic");
  d.nic.maxconn = get<long>(n, "maxconn", s, "nic");
  const json& r = need(j, "rdma", s, "top");
  d.rdma.resource = get<std::string>(r, "resource", s, "rdma");
  d.rdma.note = get<std::string>(r, "note", s, "rdma");
  d.rdma.count = get<int>(r, "count", s, "rdma");
  d.rdma.modes = get<std::vector<std::string>>(r, "modes", s, "rdma");
  const json& cpu = need(j, "cpu", s, "top");
  d.cpu.arch = get<std::string>(cpu, "arch", s, "cpu");
  d.cpu.vendor = get<std::string>(cpu, "vendor", s, "cpu");
  d.cpu.familyid = get<int>(cpu, "familyid", s, "cpu");
  d.cpu.modelid = get<int>(cpu, "modelid", s, "cpu");
  const json& nv = need(j, "nvlink", s, "top");
  d.nvlink_tclass = get<std::string>(nv, "tclass", s, "nvlink");
  d.nvlink_targets = get<std::vector<std::pair<std::string, int>>>(nv, "targets", s, "nvlink");
  for (const auto& st : need(j, "nccl", s, "top")) {
    d.nccl.push_back({get<std::string>(st, "name", s, "nccl"), get<std::string>(st, "value", s, "nccl"),
                      get<std::string>(st, "why", s, "nccl")});
  }
}

// The GPUs are numbered 0..count-1, each once; the ports match the RDMA count.
void check_counts(const ShapeDescription& d, const std::string& s) {
  auto busids = d.gpu_busids();
  if (static_cast<int>(busids.size()) != d.gpu.count) {
    bad(s, "numa_nodes", std::to_string(busids.size()) + " GPUs in the PCI tree, gpu.count says " +
                             std::to_string(d.gpu.count));
  }
  std::vector<int> seen;
  std::function<void(const PciNode&)> walk = [&](const PciNode& n) {
    if (n.gpu >= 0) seen.push_back(n.gpu);
    for (const auto& c : n.children) walk(c);
  };
  for (const auto& numa : d.numa_nodes) {
    for (const auto& p : numa.pci) walk(p);
  }
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < static_cast<int>(seen.size()); ++i) {
    if (seen[i] != i) bad(s, "numa_nodes", "GPU indices must be 0.." + std::to_string(seen.size() - 1) + ", each once");
  }
}

std::string read_file(const std::filesystem::path& p) {
  if (auto text = read_text_file(p.string())) return std::move(*text);
  throw Error(ErrorKind::Usage, p.string() + ": cannot read the shape description");
}

}  // namespace

std::vector<std::string> ShapeDescription::nic_names() const {
  std::vector<std::string> names;
  std::function<void(const PciNode&)> walk = [&](const PciNode& n) {
    for (const auto& net : n.nets) {
      if (std::find(names.begin(), names.end(), net.name) == names.end()) names.push_back(net.name);
    }
    for (const auto& c : n.children) walk(c);
  };
  for (const auto& numa : numa_nodes) {
    for (const auto& p : numa.pci) walk(p);
  }
  return names;
}

std::vector<std::string> ShapeDescription::gpu_busids() const {
  std::vector<std::string> ids;
  std::function<void(const PciNode&)> walk = [&](const PciNode& n) {
    if (n.kind == "gpu") ids.push_back(n.busid);
    for (const auto& c : n.children) walk(c);
  };
  for (const auto& numa : numa_nodes) {
    for (const auto& p : numa.pci) walk(p);
  }
  return ids;
}

int ShapeDescription::net_count() const {
  int count = 0;
  std::function<void(const PciNode&)> walk = [&](const PciNode& n) {
    count += static_cast<int>(n.nets.size());
    for (const auto& c : n.children) walk(c);
  };
  for (const auto& numa : numa_nodes) {
    for (const auto& p : numa.pci) walk(p);
  }
  return count;
}

ShapeDescription parse_shape_description(const std::string& json_text, const std::string& source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw Error(ErrorKind::Usage, source + ": not valid JSON: " + e.what());
  }
  ShapeDescription d;
  parse_header(j, d, source);
  Context c{source, {}, {}};
  parse_templates(j, c);
  int i = 0;
  for (const auto& numa : need(j, "numa_nodes", source, "top")) {
    const std::string where = "numa_nodes[" + std::to_string(i++) + "]";
    NumaNode n;
    n.numaid = get<int>(numa, "numaid", source, where);
    n.affinity = get<std::string>(numa, "affinity", source, where);
    int k = 0;
    for (const auto& p : need(numa, "pci", source, where)) {
      n.pci.push_back(parse_pci(p, c, where + ".pci[" + std::to_string(k++) + "]", 0));
    }
    d.numa_nodes.push_back(std::move(n));
  }
  check_counts(d, source);
  return d;
}

std::vector<std::string> builtin_shape_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : builtin_shape_texts()) names.push_back(name);
  return names;
}

ShapeDescription load_shape(const std::string& shape, const std::string& directory) {
  if (!directory.empty()) {
    const auto path = std::filesystem::path(directory) / (shape + ".json");
    if (std::filesystem::exists(path)) return parse_shape_description(read_file(path), path.string());
  }
  for (const auto& [name, text] : builtin_shape_texts()) {
    if (name == shape) return parse_shape_description(text, "built-in " + name + ".json");
  }
  std::string known;
  for (const auto& n : builtin_shape_names()) known += " " + n;
  throw Error(ErrorKind::Usage, "unknown shape '" + shape + "'" +
                                    (directory.empty() ? "" : " (no " + directory + "/" + shape + ".json)") +
                                    "; the built-in shapes are:" + known);
}

std::vector<ShapeDescription> load_all_shapes(const std::string& directory) {
  std::vector<ShapeDescription> all;
  if (directory.empty()) {
    for (const auto& [name, text] : builtin_shape_texts()) {
      all.push_back(parse_shape_description(text, "built-in " + name + ".json"));
    }
    return all;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(directory)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) all.push_back(parse_shape_description(read_file(f), f.string()));
  return all;
}

}  // namespace commsweep::topology
