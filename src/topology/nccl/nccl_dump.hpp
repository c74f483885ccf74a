// `commsweep topo dump`: what NCCL itself detects on this node, written by NCCL to a file
// (NCCL_TOPO_DUMP_FILE) while it builds a communicator over the node's GPUs. Needs the nccl
// backend and GPUs; built without them, it says so.
#pragma once

#include <string>

namespace commsweep::topology {

// Writes NCCL's view of this node's topology to `path`; throws commsweep::Error.
void dump_nccl_topology(const std::string& path);

}  // namespace commsweep::topology
