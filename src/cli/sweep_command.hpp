#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "comm/backend.hpp"
#include "report/result.hpp"
#include "run/run_setup.hpp"
#include "runtime/world.hpp"
#include "core/sweep_config.hpp"
#include "sweep/run_control.hpp"

namespace commsweep {


// What one collective sweep measured (rows complete on rank 0).
struct CollectiveOutcome {
  std::vector<report::ResultRow> rows;
  std::uint64_t wrong = 0;
  bool interrupted = false;  // SIGTERM / SIGINT stopped it: the rows so far
};

// Runs `tests` over `config` on a backend that is set up: a table per test (and per cycle) in
// nccl-tests' layout, printed by rank 0 to `out`; CONTROL stops it where the ranks agree to
// (and stays interrupted). `commsweep TEST...` and `commsweep suite` both run their collective
// sweeps here.
CollectiveOutcome run_collective_sweep(World& world, Backend& backend, RunControl& control,
                                       const RunSetup& run, const std::vector<std::string>& tests,
                                       SweepConfig config, std::ostream& out);

// Runs the collective sweeps of `options`; returns the exit code (0, or 1 on wrong results).
int run_sweep_command(World& world, const CliOptions& options, char** envp, RankContext& context);

}  // namespace commsweep
