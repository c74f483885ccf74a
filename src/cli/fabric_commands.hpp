// The fabric subcommands: `commsweep preflight` (world: every node checked, one table on
// rank 0), `commsweep env` (offline: export lines for a pod's entrypoint) and
// `commsweep transport` (offline: NCCL's INFO logs read back, --require-* verdicts).
#pragma once

#include <string>

namespace commsweep {

class World;

int run_preflight_command(World& world, int argc, char** argv, char** envp);
int run_env_command(int argc, char** argv, char** envp);
int run_transport_command(int argc, char** argv, char** envp);

std::string preflight_help_text();
std::string env_help_text();
std::string transport_help_text();

// Before a sweep (unless --no-preflight): the node checks, brief, on every rank; rank 0 prints
// one summary line and the FAIL rows. Returns whether any check FAILed (the sweep goes on).
bool run_brief_preflight(World& world, char** envp, double timeout_s);

}  // namespace commsweep
