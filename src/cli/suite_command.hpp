// `commsweep suite FILE`: its command line (the run's settings, -c, the file) and its --help.
#pragma once

#include <string>
#include <vector>

#include "run/suite_file.hpp"

namespace commsweep {

struct SuiteCommandLine {
  bool help = false;
  std::string path;                    // the suite file
  SuiteOverrides overrides;            // the run's settings, -T and -c over every sweep's keys
  std::vector<std::string> arguments;  // argv after the program name, for provenance
};

// argv[1] is "suite". Throws a usage Error naming the flag.
SuiteCommandLine parse_suite_command_line(int argc, const char* const* argv);
std::string suite_help_text();

}  // namespace commsweep
