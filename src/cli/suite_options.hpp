// `commsweep suite FILE`: its command line, and the suite file read into sweeps. Each sweep's
// keys are read straight from the document through the settings tables of `commsweep TEST...`
// (collectives/settings.hpp) and `commsweep ep` (ep/settings.hpp), so a value is refused or
// accepted exactly as on the command line; a refusal names the file, line, sweep and key.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "ep/ep_config.hpp"
#include "core/sweep_config.hpp"

namespace commsweep {

struct SuiteCliOptions {
  std::string path;                    // the suite file
  BackendChoice backend = BackendChoice::Auto;
  std::string json_path;
  double timeout_s = 300;              // -T: the suite's own phases, and every sweep's when given
  bool timeout_given = false;
  int check = 1;                       // -c: collectives' -c, EP checks when > 0 (when given)
  bool check_given = false;
  FabricRunOptions fabric;             // once for the suite: preflight, transport, binding
  std::vector<std::string> arguments;  // argv after the program name, for provenance
  bool help = false;
};

// Throws a usage Error naming the flag.
SuiteCliOptions parse_suite_options(int argc, const char* const* argv);

struct SuiteSweep {
  enum class Kind { Collective, Ep };
  Kind kind = Kind::Collective;
  std::string name;
  std::string where;               // "suites/ci.yaml:4: sweep 1 \"small\"", for messages
  std::vector<std::string> tests;  // collective: registry names
  SweepConfig collective;
  ep::EpConfig ep;
};

struct Suite {
  std::vector<SuiteSweep> sweeps;
};

// Parses `text` (the contents of `path`: JSON or the YAML subset) and checks every sweep;
// throws a usage Error "PATH:LINE: ..." on the first problem.
Suite read_suite(const std::string& path, const std::string& text, const SuiteCliOptions& options);

std::string suite_help_text();

}  // namespace commsweep
