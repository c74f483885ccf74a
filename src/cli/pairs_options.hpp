// `commsweep pairs`: its flags and --help.
#pragma once

#include <string>
#include <vector>

#include "run/fabric_run_options.hpp"
#include "cli/options.hpp"
#include "pairs/settings.hpp"

namespace commsweep {

// The settings (pairs/settings.hpp: -s -n -w -c -T --slow-below --seed --pattern --topology
// --adaptive --max-minutes --cost-from --plan --nodes --per-leaf --leaves-per-block
// --gpus-per-node, and the test hooks --fault, --fault-slowdown), and the command's own flags.
struct PairsOptions : pairs::PairsSettings {
  bool help = false;
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::string html_path;  // --html: the heatmap by leaf
  FabricRunOptions fabric;  // --no-preflight, --require-transport, --require-gdr, --bind
  std::vector<std::string> arguments;  // argv after the program name, for provenance
};

// Throws a usage Error naming the flag.
PairsOptions parse_pairs_options(int argc, const char* const* argv);
// Whether argv asks for --plan (checked before MPI starts: the plan needs no MPI).
bool pairs_plan_requested(int argc, const char* const* argv);
std::string pairs_help_text();

}  // namespace commsweep
