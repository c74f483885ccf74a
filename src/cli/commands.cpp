#include "cli/commands.hpp"

#include <sstream>

#include "cli/regress_commands.hpp"

namespace commsweep {

// One line per command; keep each list in alphabetical order.
const std::vector<OfflineCommand>& offline_commands() {
  static const std::vector<OfflineCommand> commands = {
      {"baseline", "a baseline (median, spread, rules) from N results files", run_baseline_command},
      {"compare", "judge a results file against a baseline: verdicts, stragglers, reports", run_compare_command},
  };
  return commands;
}

const std::vector<WorldCommand>& world_commands() {
  static const std::vector<WorldCommand> commands = {
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
