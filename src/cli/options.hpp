// The command line: `commsweep [TEST...] [flags]`, with nccl-tests' flags and long names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run/fabric_run_options.hpp"
#include "comm/make_backend.hpp"
#include "core/sweep_config.hpp"

namespace commsweep {

struct CliOptions {
  enum class Action { Sweep, Help, Version, List };
  Action action = Action::Sweep;
  std::vector<std::string> tests;  // registry names, in order
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  std::string shape;            // --shape (cli/run_topology.hpp)
  bool force_topology = false;  // --force
  FabricRunOptions fabric;      // --no-preflight, --require-transport, --require-gdr, --bind
  SweepConfig sweep;
  std::vector<std::string> arguments;  // argv as given, for provenance
};

// Throws a usage Error naming the flag on any bad value.
CliOptions parse_options(int argc, const char* const* argv);
// --backend's value: nccl, mpi or auto; a usage Error naming --backend otherwise.
BackendChoice parse_backend(const std::string& text);
std::string help_text();

}  // namespace commsweep
