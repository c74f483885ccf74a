// One node's health snapshot: the RDMA ports, the PCIe links and the GPUs, read now.
#pragma once

#include <string>

#include "health/nvml_api.hpp"
#include "health/records.hpp"
#include "health/tree.hpp"

namespace commsweep::health {

// NVML may be null (not asked for); its XID events since the last call are drained into the
// snapshot. HOST names the node in every finding.
Snapshot take_snapshot(const Tree& tree, NvmlApi* nvml, const std::string& host, const std::string& label);

}  // namespace commsweep::health
