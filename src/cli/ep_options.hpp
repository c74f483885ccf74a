// The command line of `commsweep ep`: the MoE dispatch / combine sweep, its axes as comma lists
// (DeepEP's test settings as defaults), and --suite, a JSON or YAML file of the same settings
// (one `kind: ep` entry of a suite file). The settings are ep/settings.hpp's table.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "ep/ep_config.hpp"

namespace commsweep {

struct EpCliOptions {
  ep::EpConfig config;
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::string shape;            // --shape (cli/run_topology.hpp)
  bool force_topology = false;  // --force
  FabricRunOptions fabric;      // --no-preflight, --require-transport, --require-gdr, --bind
  std::vector<std::string> arguments;  // argv after the program name ("ep" included), for provenance
  bool help = false;
};

// argv[0] is the program, argv[1] "ep" (skipped). Flags given on the command line override the
// suite's keys; the suite overrides the defaults. Throws a usage Error naming the flag (or the
// suite file, line and key) on any bad value. What needs the number of ranks (experts divisible by
// them, topk_groups within the nodes) is checked later, by ep::invalid.
EpCliOptions parse_ep_options(int argc, const char* const* argv);
std::string ep_help_text();

}  // namespace commsweep
