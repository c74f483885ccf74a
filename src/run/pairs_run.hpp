#pragma once

namespace commsweep {

class World;

// `commsweep pairs`: sendrecv bandwidth between every pair of nodes, in rounds of disjoint
// pairs, as a node x node matrix with the slow pairs and the likely bad node named (a
// WorldCommand: cli/commands.cpp).
int run_pairs_command(World& world, int argc, char** argv, char** envp);

}  // namespace commsweep
