#pragma once

#include "cli/options.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// What the top level knows of this rank when it reports an error.
struct RankContext {
  int device = -1;
};

// Runs the collective sweeps of `options`; returns the exit code (0, or 1 on wrong results).
int run_sweep_command(World& world, const CliOptions& options, char** envp, RankContext& context);

}  // namespace commsweep
