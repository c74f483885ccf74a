#pragma once

namespace commsweep {

class World;

// `commsweep suite FILE`: the suite file's sweeps on one communicator, a table each, one JSON
// results file (a WorldCommand: cli/commands.cpp).
int run_suite_command(World& world, int argc, char** argv, char** envp);

}  // namespace commsweep
