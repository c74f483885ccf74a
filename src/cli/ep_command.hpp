// `commsweep ep` and the EP sweeps of `commsweep suite`: the command's side (the policy's
// record, the table); the workload is ep/ (ep_sweep, make_exchange, nccl_policy).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/ep_options.hpp"
#include "cli/sweep_command.hpp"
#include "comm/backend.hpp"
#include "ep/ep_config.hpp"
#include "report/result.hpp"
#include "runtime/world.hpp"
#include "sweep/run_control.hpp"

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

// The NCCL version policy for the EP implementations `config` asks for (nccl backend only;
// ep/nccl_policy.hpp decides), recorded in `run` for the preamble and the provenance. Every
// rank agrees (the first rank whose library is refused gives the reason). --ep-impl lsa
// refused: an Error (exit code 3) when it is the only implementation asked for; otherwise it is
// left out of `config` and the returned note says why (for the table and the results' notes).
// "" when nothing was left out.
std::string apply_ep_nccl_policy(World& world, RunSetup& run, ep::EpConfig& config);

// Runs the EP sweep of `config` on a backend that is set up: one table, printed by rank 0 to
// `out`, with `policy_note` (apply_ep_nccl_policy) under its header; CONTROL stops it where the
// ranks agree to. Refuses (usage error) a case that cannot run on this job before any runs.
// `commsweep ep` and `commsweep suite` both run their EP sweeps here.
EpOutcome run_ep_sweep(World& world, Backend& backend, RunControl& control, const RunSetup& run,
                       const ep::EpConfig& config, std::ostream& out, const std::string& policy_note = "");

// Runs `commsweep ep`: the MoE dispatch / combine sweep; returns the exit code (0, or 1 on
// wrong results).
int run_ep_command(World& world, const EpCliOptions& options, char** envp, RankContext& context);

}  // namespace commsweep
