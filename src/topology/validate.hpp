// `commsweep topo validate`: is a topology file well formed, does it hold the shape's GPUs and
// NICs, and are its bus ids and NICs present (and the NIC ports active) on this node? The node
// is read through a sysfs root (tests point it at fixture trees).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/facts.hpp"
#include "topology/shape_description.hpp"

namespace commsweep::topology {

struct ValidateOptions {
  const ShapeDescription* shape = nullptr;  // counts and NIC names; none: not checked
  std::optional<std::string> sysfs_root;    // "/" on a node; none: no node checks
};

struct ValidationReport {
  bool well_formed = false;
  TopologyFacts facts;
  std::vector<Finding> problems;  // empty: valid
  std::vector<std::string> checked;  // what was checked, for the summary line

  bool valid() const { return problems.empty(); }
};

ValidationReport validate_topology(std::string_view text, const ValidateOptions& options);

// Are the file's bus ids present under <root>/sys/bus/pci/devices and its NICs under
// <root>/sys/class/infiniband, with the named port ACTIVE?
std::vector<Finding> check_node(const TopologyFacts& facts, const std::string& sysfs_root);

// "FILE:LINE: reason" lines and a last line saying valid or invalid.
std::string format_report(const std::string& file, const ValidationReport& report);

}  // namespace commsweep::topology
