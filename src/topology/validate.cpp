#include "topology/validate.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace commsweep::topology {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::vector<Finding> check_shape(const TopologyFacts& facts, const ShapeDescription& shape) {
  std::vector<Finding> problems;
  const int gpus = static_cast<int>(facts.gpus.size());
  if (gpus != shape.gpu.count) {
    std::string missing;
    for (const auto& b : shape.gpu_busids()) {
      const bool found = std::any_of(facts.gpus.begin(), facts.gpus.end(), [&](const GpuFact& g) { return g.busid == b; });
      if (!found) missing += (missing.empty() ? "" : ", ") + b;
    }
    problems.push_back({0, std::to_string(gpus) + " GPUs, " + shape.shape + " has " + std::to_string(shape.gpu.count) +
                               (missing.empty() ? "" : " (missing the shape's " + missing + ")")});
  }
  const auto expected = shape.nic_names();
  for (const auto& n : facts.nets) {
    if (std::find(expected.begin(), expected.end(), n.name) == expected.end()) {
      problems.push_back({n.line, "NIC '" + n.name + "' is not one of " + shape.shape + "'s RDMA NICs (" + joined(expected) + ")"});
    }
  }
  if (static_cast<int>(facts.nets.size()) != shape.net_count()) {
    problems.push_back({0, std::to_string(facts.nets.size()) + " NIC ports (<net>), " + shape.shape + " has " +
                               std::to_string(shape.net_count())});
  }
  return problems;
}

std::string first_line_of(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// The state of the file's port where the device has it; else of every port: an SR-IOV VF has
// only port 1 whatever the file says (OCI's files number the two VFs of a NIC ports 1 and 2).
std::vector<std::pair<std::string, std::string>> port_states(const fs::path& device, int port) {
  std::vector<std::pair<std::string, std::string>> states;
  const fs::path named = device / "ports" / std::to_string(port) / "state";
  std::error_code ec;
  if (fs::exists(named, ec)) {
    states.emplace_back(std::to_string(port), first_line_of(named));
    return states;
  }
  for (const auto& e : fs::directory_iterator(device / "ports", ec)) {
    if (fs::exists(e.path() / "state", ec)) states.emplace_back(e.path().filename().string(), first_line_of(e.path() / "state"));
  }
  std::sort(states.begin(), states.end());
  return states;
}

}  // namespace

std::vector<Finding> check_node(const TopologyFacts& facts, const std::string& sysfs_root) {
  std::vector<Finding> problems;
  const fs::path root(sysfs_root.empty() ? "/" : sysfs_root);
  const fs::path pci = root / "sys/bus/pci/devices";
  std::error_code ec;
  for (const auto& g : facts.gpus) {
    if (!g.busid.empty() && !fs::exists(pci / g.busid, ec)) {
      problems.push_back({g.line, "GPU " + g.busid + " is not on this node (no " + (pci / g.busid).string() + ")"});
    }
  }
  std::vector<std::string> seen_nic_busids;
  for (const auto& n : facts.nets) {
    if (!n.busid.empty() && std::find(seen_nic_busids.begin(), seen_nic_busids.end(), n.busid) == seen_nic_busids.end()) {
      seen_nic_busids.push_back(n.busid);
      if (!fs::exists(pci / n.busid, ec)) {
        problems.push_back({n.line, "NIC " + n.name + " at " + n.busid + " is not on this node (no " + (pci / n.busid).string() + ")"});
      }
    }
    const fs::path device = root / "sys/class/infiniband" / n.name;
    if (!fs::exists(device, ec)) {
      problems.push_back({n.line, "NIC '" + n.name + "' is not on this node (no " + device.string() + ")"});
      continue;
    }
    const auto states = port_states(device, n.port);
    if (states.empty()) {
      problems.push_back({n.line, "NIC " + n.name + " has no ports (no " + (device / "ports/*/state").string() + ")"});
      continue;
    }
    std::string seen;
    bool active = false;
    for (const auto& [port, state] : states) {
      active = active || state.find("ACTIVE") != std::string::npos;
      seen += (seen.empty() ? "" : ", ") + std::string("port ") + port + " '" + state + "'";
    }
    if (!active) problems.push_back({n.line, "NIC " + n.name + " is not active (" + seen + ")"});
  }
  return problems;
}

ValidationReport validate_topology(std::string_view text, const ValidateOptions& options) {
  ValidationReport r;
  XmlElement root;
  try {
    root = parse_xml(text);
  } catch (const XmlError& e) {
    r.problems.push_back({e.line(), "not well-formed XML: " + e.reason()});
    return r;
  }
  r.well_formed = true;
  r.checked.push_back("well-formed");
  r.facts = read_topology_facts(root);
  r.problems = r.facts.problems;
  if (options.shape != nullptr) {
    const auto more = check_shape(r.facts, *options.shape);
    r.problems.insert(r.problems.end(), more.begin(), more.end());
    r.checked.push_back("GPU and NIC counts and NIC names of " + options.shape->shape);
  }
  if (options.sysfs_root) {
    const auto more = check_node(r.facts, *options.sysfs_root);
    r.problems.insert(r.problems.end(), more.begin(), more.end());
    r.checked.push_back("bus ids and active NIC ports on this node (sysfs root " + *options.sysfs_root + ")");
  }
  std::stable_sort(r.problems.begin(), r.problems.end(), [](const Finding& a, const Finding& b) { return a.line < b.line; });
  return r;
}

std::string format_report(const std::string& file, const ValidationReport& r) {
  std::ostringstream out;
  for (const auto& p : r.problems) {
    out << file;
    if (p.line > 0) out << ":" << p.line;
    out << ": " << p.reason << "\n";
  }
  std::string checked;
  for (const auto& c : r.checked) checked += (checked.empty() ? "" : "; ") + c;
  if (r.valid()) {
    out << file << ": valid: " << r.facts.gpus.size() << " GPUs, " << r.facts.nic_names().size() << " NICs ("
        << r.facts.nets.size() << " ports); checked: " << checked << "\n";
  } else {
    out << file << ": INVALID: " << r.problems.size() << (r.problems.size() == 1 ? " problem" : " problems");
    if (!checked.empty()) out << "; checked: " << checked;
    out << "\n";
  }
  return out.str();
}

}  // namespace commsweep::topology
