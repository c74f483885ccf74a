// The topology step of a sweep's start, on every rank, before NCCL starts: when the shape is
// known (--shape, COMMSWEEP_SHAPE or the node's instance-type label), NCCL_TOPO_FILE is set to
// the ConfigMap mount (unless the user set it) after the file was checked against each node;
// a file that does not match a node ends the run on every rank (unless --force).
#pragma once

#include <string>

namespace commsweep {

class World;

struct TopologyRequest {
  std::string shape;   // --shape; empty: COMMSWEEP_SHAPE, then the labels file
  bool force = false;  // --force: use a topology file that does not match the node
};

// The line for the header notes ("" when no shape is known: nothing done). Throws a usage
// Error on every rank, naming the hosts, when a node refuses its file. Reads the environment:
// COMMSWEEP_SHAPE, COMMSWEEP_LABELS_FILE (default /etc/podinfo/labels), COMMSWEEP_TOPOLOGY_DIR
// (default /etc/commsweep/topology), COMMSWEEP_SHAPES_DIR (descriptions; default built in),
// COMMSWEEP_SYSFS_ROOT (default /), NCCL_TOPO_FILE.
std::string prepare_topology(World& world, const TopologyRequest& request, double timeout_s);

}  // namespace commsweep
