#include "cli/commands.hpp"

#include <map>
#include <sstream>

#include "cli/health_command.hpp"
#include "collectives/collective_test.hpp"
#include "run/workload.hpp"

namespace commsweep {

// One line per command; keep each list in alphabetical order.
const std::vector<OfflineCommand>& offline_commands() {
  static const std::vector<OfflineCommand> commands = {
      {"baseline", "a baseline (median, spread, rules) from N results files", run_baseline_command},
      {"compare", "judge a results file against a baseline: verdicts, stragglers, reports", run_compare_command},
      {"csv", "every measurement of results files as CSV rows (commsweep csv --help)", run_csv_command},
      {"env", "export lines for NCCL/UCX that fit this pod's RDMA devices (commsweep env --help)", run_env_command},
      {"expected", "the expected busbw per GPU, count and fabric that runs are judged by (--help)",
       run_expected_command},
      {"schema", "the JSON Schemas of the files it writes, enums from the registries (--help)", run_schema_command},
      {"topo", "NCCL topology files per shape: generate, validate, dump (commsweep topo --help)", run_topo_command},
      {"transport", "read NCCL INFO logs: network, HCAs, GDR, per-peer transport (--help)", run_transport_command},
  };
  return commands;
}

const std::vector<WorldCommand>& world_commands() {
  static const std::vector<WorldCommand> commands = {
      {"health", "every node's RDMA port counters, PCIe links and GPUs (NVML), judged (--help)",
       run_health_command, "judge", run_health_judge},
      {"preflight", "check every node's RDMA, SR-IOV, host and locality (commsweep preflight --help)",
       run_preflight_command},
      {"suite", "several sweeps on one communicator from a YAML/JSON file (commsweep suite --help)",
       run_suite_command},
  };
  return commands;
}

bool asks_for_flag(const std::string& flag, int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--" + flag || a.rfind("--" + flag + "=", 0) == 0) return true;
  }
  return false;
}

std::string commands_help() {
  std::ostringstream out;
  auto line = [&](const std::string& name, const std::string& summary) {
    out << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') << summary << "\n";
  };
  // The commands that run under mpirun in alphabetical order, workloads and world commands
  // alike, then the offline ones.
  std::map<std::string, std::string> under_mpirun;
  for (const Workload* w : workloads()) {
    if (!w->command.empty()) under_mpirun[std::string(w->command)] = std::string(w->summary);
  }
  for (const auto& c : world_commands()) under_mpirun[c.name] = c.summary;
  for (const auto& [name, summary] : under_mpirun) line(name, summary);
  for (const auto& c : offline_commands()) line(c.name, c.summary);
  line("help", "this text; `commsweep help CMD` is `commsweep CMD --help`");
  return out.str();
}

std::string list_text() {
  std::string out;
  for (const auto* t : collective_tests()) out += std::string(t->name) + "\n";
  for (const Workload* w : workloads()) {
    if (w->command.empty()) continue;
    const std::string name(w->command);
    out += name + std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') + "(commsweep " + name + " --help)\n";
  }
  return out;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Workload* w : workloads()) {
    if (!w->command.empty()) names.emplace_back(w->command);
  }
  names.emplace_back("list");
  for (const auto& c : world_commands()) names.emplace_back(c.name);
  for (const auto& c : offline_commands()) names.emplace_back(c.name);
  names.emplace_back("help");
  return names;
}

}  // namespace commsweep
