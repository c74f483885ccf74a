#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "cli/ep_options.hpp"
#include "cli/sweep_command.hpp"
#include "comm/backend.hpp"
#include "ep/ep_config.hpp"
#include "report/result.hpp"
#include "runtime/watchdog.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// What one EP sweep measured (rows complete on rank 0).
struct EpOutcome {
  std::vector<report::EpRow> rows;
  std::uint64_t wrong = 0;
  bool interrupted = false;  // SIGTERM / SIGINT stopped it: the rows so far
};

// Refuses (usage error) a case of `config` that cannot run on this job (experts that do not
// divide by the ranks, ...), before anything runs.
void check_ep_config(const World& world, const ep::EpConfig& config);

// Runs the EP sweep of `config` on a backend that is set up: one table, printed by rank 0 to
// `out`. Refuses (usage error) a case that cannot run on this job before any runs.
// `commsweep ep` and `commsweep suite` both run their EP sweeps here.
EpOutcome run_ep_sweep(World& world, Backend& backend, Watchdog& watchdog, const RunSetup& run,
                       const ep::EpConfig& config, std::ostream& out);

// Runs `commsweep ep`: the MoE dispatch / combine sweep; returns the exit code (0, or 1 on
// wrong results).
int run_ep_command(World& world, const EpCliOptions& options, char** envp, RankContext& context);

}  // namespace commsweep
