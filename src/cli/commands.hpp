// The commands of `commsweep`, by name. Offline commands read and write files only (compare,
// baseline, topo, env, transport, schema): they run without MPI, so that a nightly job or an
// entrypoint can call them outside mpirun. World commands run on every rank (health, preflight,
// suite). The measuring commands are the registered workloads' (run/workload.hpp: `commsweep
// TEST...`, ep, pairs); main dispatches through these two tables and that registry alone.
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
  // A flag that makes it read files only (health --judge): then run_offline, without MPI.
  const char* offline_flag = nullptr;
  int (*run_offline)(int argc, char** argv) = nullptr;
};

// Whether argv[2...] gives --FLAG (or --FLAG=VALUE): a command's offline form, asked before MPI.
bool asks_for_flag(const std::string& flag, int argc, char** argv);

const std::vector<OfflineCommand>& offline_commands();
const std::vector<WorldCommand>& world_commands();

// "  name   summary" lines for the help text: the commands run under mpirun (workloads and world
// commands) in alphabetical order, then the offline ones.
std::string commands_help();
// `commsweep list`: the collectives (the tests of `commsweep TEST...`), then each other
// workload's command with a note ("ep              (commsweep ep --help)").
std::string list_text();
// Every command word, `list` among them, in that order (for the message of a mistyped one).
std::vector<std::string> command_names();

// The commands' entry points (cli/<name>_command.cpp).
int run_baseline_command(int argc, char** argv, char** envp);
int run_compare_command(int argc, char** argv, char** envp);
int run_csv_command(int argc, char** argv, char** envp);
int run_env_command(int argc, char** argv, char** envp);
int run_expected_command(int argc, char** argv, char** envp);
int run_schema_command(int argc, char** argv, char** envp);
int run_topo_command(int argc, char** argv, char** envp);
int run_transport_command(int argc, char** argv, char** envp);
int run_preflight_command(World& world, int argc, char** argv, char** envp);
int run_suite_command(World& world, int argc, char** argv, char** envp);

}  // namespace commsweep
