// The command line of a measuring command (`commsweep TEST...`, `commsweep ep`, `commsweep pairs`,
// any registered workload): its workload's settings table and the run's (run/run_settings.hpp)
// described to Boost.Program_options, read into the run's settings and one Measurement; and its
// --help, generated from the same tables around the workload's text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "run/run_settings.hpp"
#include "run/workload.hpp"

namespace commsweep {

struct MeasureOptions {
  bool help = false;
  bool version = false;            // `commsweep --version` (the collectives' command line)
  bool list = false;               // `commsweep list`
  bool offline = false;            // the workload's offline flag (pairs --plan): no MPI
  RunSettings run;
  std::unique_ptr<Measurement> measurement;  // null with help, version or list
  std::vector<std::string> arguments;        // argv after the program name, for provenance
};

// argv[1] is W's command word (none for the collectives, whose words before the flags are the
// tests). Throws a usage Error naming the flag, the settings file's line and key, or the word.
MeasureOptions parse_measure_options(const Workload& w, int argc, const char* const* argv);

// W's --help: its text, its settings' sections, the run's and the fabric's, its closing text
// (the collectives': the other commands after the tests).
std::string measure_help_text(const Workload& w);

}  // namespace commsweep
