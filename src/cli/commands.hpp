// The subcommands besides the sweeps (`commsweep TEST...` and `commsweep ep`), by name.
// Offline commands read and write files only (compare, baseline, topo, env): they run without
// MPI, so that a nightly job or an entrypoint can call them outside mpirun. World commands
// run on every rank (preflight, pairs, suite).
#pragma once

#include <string>
#include <vector>

namespace commsweep {

class World;

struct OfflineCommand {
  const char* name;
  const char* summary;  // one line for `commsweep --help`
  // argv[0] is the program, argv[1] the command's name; returns the exit code.
  int (*run)(int argc, char** argv, char** envp);
};

struct WorldCommand {
  const char* name;
  const char* summary;
  // Errors thrown as commsweep::Error become a message and an exit code in main.
  int (*run)(World& world, int argc, char** argv, char** envp);
};

const std::vector<OfflineCommand>& offline_commands();
const std::vector<WorldCommand>& world_commands();

// "  name   summary" lines for the help text.
std::string commands_help();

}  // namespace commsweep
