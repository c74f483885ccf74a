#include "cli/commands.hpp"

#include <sstream>

#include "cli/fabric_commands.hpp"
#include "cli/health_command.hpp"
#include "cli/pairs_command.hpp"
#include "cli/regress_commands.hpp"
#include "cli/suite_command.hpp"
#include "cli/topo_command.hpp"

namespace commsweep {

int run_schema_command(int argc, char** argv, char** envp);  // cli/schema_command.cpp

// One line per command; keep each list in alphabetical order.
const std::vector<OfflineCommand>& offline_commands() {
  static const std::vector<OfflineCommand> commands = {
      {"baseline", "a baseline (median, spread, rules) from N results files", run_baseline_command},
      {"compare", "judge a results file against a baseline: verdicts, stragglers, reports", run_compare_command},
      {"env", "export lines for NCCL/UCX that fit this pod's RDMA devices (commsweep env --help)", run_env_command},
      {"schema", "the results, baseline and pairs JSON Schemas, enums from the registries (--help)", run_schema_command},
      {"topo", "NCCL topology files per shape: generate, validate, dump (commsweep topo --help)", run_topo_command},
      {"transport", "read NCCL INFO logs: network, HCAs, GDR, per-peer transport (--help)", run_transport_command},
  };
  return commands;
}

const std::vector<WorldCommand>& world_commands() {
  static const std::vector<WorldCommand> commands = {
      {"health", "every node's RDMA port counters, PCIe links and GPUs (NVML), judged (--help)",
       run_health_command},
      {"pairs", "bandwidth between every pair of nodes: a matrix, slow pairs, the bad node (--help)",
       run_pairs_command},
      {"preflight", "check every node's RDMA, SR-IOV, host and locality (commsweep preflight --help)",
       run_preflight_command},
      {"suite", "several sweeps on one communicator from a YAML/JSON file (commsweep suite --help)",
       run_suite_command},
  };
  return commands;
}

std::string commands_help() {
  std::ostringstream out;
  auto line = [&](const char* name, const char* summary) {
    const std::string n(name);
    out << "  " << n << std::string(n.size() < 16 ? 16 - n.size() : 1, ' ') << summary << "\n";
  };
  line("ep", "MoE dispatch/combine sweep (commsweep ep --help)");
  for (const auto& c : world_commands()) line(c.name, c.summary);
  for (const auto& c : offline_commands()) line(c.name, c.summary);
  return out.str();
}

}  // namespace commsweep
