// Where every error of a command that runs on every rank becomes a message naming the rank,
// host and device, and an exit code (main's, for the world commands and the measuring ones).
#pragma once

#include <functional>

#include "core/error.hpp"
#include "run/run_setup.hpp"

namespace commsweep {

class World;

// A usage error every rank reached: the job ends at once, so the others' exit (mpirun answers
// a rank's non-zero exit with SIGTERM to the rest) must not add an "interrupted" line to the one
// message: nothing is kept or said on a signal from here on, then rank 0 says why. Returns 2.
int refuse_usage(World& world, const Error& e);

// Runs COMMAND, turning every error into its message and exit code: a usage error or an agreed
// out-of-memory ends normally (rank 0 says why), any other ends the job from this rank.
int guarded(World& world, RankContext& context, const std::function<int()>& command);

}  // namespace commsweep
