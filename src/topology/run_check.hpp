// Before a sweep on a node of a known shape: which topology file NCCL gets (NCCL_TOPO_FILE as
// the user set it, else the ConfigMap mount), and whether that file matches the node. A file
// that does not match is refused (unless forced): NCCL would otherwise build its rings and
// trees on GPUs and NICs that are not there, and run slow or fail far from the cause.
#pragma once

#include <string>

#include "topology/shape_description.hpp"

namespace commsweep::topology {

enum class TopologyVerdict {
  Use,     // set NCCL_TOPO_FILE (or keep the user's) and run
  Skip,    // no file to use: NCCL detects the topology itself
  Refuse,  // the file does not match this node: end the run, saying why
};

struct TopologyRunInput {
  std::string shape;
  std::string user_topo_file;  // NCCL_TOPO_FILE as set by the user; empty: not set
  std::string mount_dir = "/etc/commsweep/topology";
  std::string sysfs_root = "/";
  bool force = false;
  const ShapeDescription* description = nullptr;  // none: counts and names not checked
};

struct TopologyRunCheck {
  TopologyVerdict verdict = TopologyVerdict::Skip;
  std::string file;     // the file NCCL is to use (Use)
  bool set_env = false;  // commsweep sets NCCL_TOPO_FILE (the user had not)
  std::string message;  // one line for the header notes, or the reason for refusing
};

TopologyRunCheck check_topology_for_run(const TopologyRunInput& input);

}  // namespace commsweep::topology
