// `commsweep preflight`: the checks of one node (no MPI here: the command gathers the nodes'
// reports over MPI and prints them with preflight_table.hpp).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/check.hpp"
#include "fabric/rdma_inventory.hpp"

namespace commsweep::fabric {

struct PreflightOptions {
  std::string sysfs_root = "/";
  // The downward-API annotations file; "" means <root>/etc/podinfo/annotations.
  std::string annotations;
  bool brief = false;  // before a sweep: leave out what takes time (UCX's init)
};

struct NodeReport {
  std::string host;
  int ranks = 0;  // the job's ranks on this host
  std::vector<Check> checks;
  nlohmann::json inventory;  // the RDMA devices, for the JSON file
};

// The NCCL_*, UCX_* and PCIDEVICE_* environment, by name.
std::map<std::string, std::string> fabric_environment(char** envp);

NodeReport check_node(const PreflightOptions& options, char** envp);

// The parts, for tests.
std::vector<Check> rdma_checks(const RdmaInventory& inventory, const std::map<std::string, std::string>& env,
                               bool live);
std::vector<Check> pod_checks(const SysfsRoot& root, const RdmaInventory& inventory, char** envp,
                              const std::string& annotations_path);
nlohmann::json inventory_json(const RdmaInventory& inventory);

nlohmann::json to_json(const NodeReport& node);
NodeReport node_from_json(const nlohmann::json& doc);  // throws nlohmann::json::exception

struct Tally {
  int pass = 0, warn = 0, fail = 0;
};
Tally tally(const std::vector<NodeReport>& nodes);

// The file --json writes: schema commsweep.preflight/1.
nlohmann::json preflight_json(const std::vector<NodeReport>& nodes);

}  // namespace commsweep::fabric
