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

}  // namespace commsweep
