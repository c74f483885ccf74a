#pragma once

#include "cli/ep_options.hpp"
#include "cli/sweep_command.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// Runs `commsweep ep`: the MoE dispatch / combine sweep; returns the exit code (0, or 1 on
// wrong results).
int run_ep_command(World& world, const EpCliOptions& options, char** envp, RankContext& context);

}  // namespace commsweep
