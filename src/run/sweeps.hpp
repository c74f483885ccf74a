// The sweeps of a measuring run that print nccl-tests' tables (`commsweep TEST...`, a suite's
// `kind: collective`: run/collective_sweep.cpp) and the EP table (`commsweep ep`, `kind: ep`:
// run/ep_sweep_run.cpp): a row kept before it is shown, the usage checks that need the job.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "core/sweep_config.hpp"
#include "ep/ep_config.hpp"
#include "report/result.hpp"
#include "run/run_settings.hpp"
#include "run/run_setup.hpp"
#include "runtime/world.hpp"
#include "sweep/run_control.hpp"

namespace commsweep {

// What one sweep measured (rows complete on rank 0): report::ResultRow or report::EpRow.
template <typename Row>
struct SweepOutcome {
  std::vector<Row> rows;
  std::uint64_t wrong = 0;
  bool interrupted = false;  // SIGTERM / SIGINT stopped it: the rows so far
  // Rank 0, collective rows: those below their expected figure's floor (run/expected_run.hpp).
  std::vector<report::ExpectedFinding> expected_findings;
};
using CollectiveOutcome = SweepOutcome<report::ResultRow>;
using EpOutcome = SweepOutcome<report::EpRow>;

// The clock a collective sweep times with (provenance.timer): "device" for --timer device on
// the nccl backend, else "host" (the mpi backend has MPI_Wtime only).
std::string timer_name(const SweepConfig& config, const Backend& backend);

// Runs `tests` over `config` on a backend that is set up: a table per test (and per cycle) in
// nccl-tests' layout, printed by rank 0 to `out`; CONTROL stops it where the ranks agree to
// (and stays interrupted).
CollectiveOutcome run_collective_sweep(World& world, Backend& backend, RunControl& control,
                                       const RunSetup& run, const std::vector<std::string>& tests,
                                       SweepConfig config, std::ostream& out);

// The usage errors that need the job's size or its GPUs, found before the preflight and the
// table header are printed (every rank reaches the same verdict): a root outside the job (NAMED:
// "-r/--root" or a suite's "root"), -G where --backend auto chooses mpi.
void check_collective_sweep(World& world, const std::vector<std::string>& tests, const SweepConfig& config,
                            BackendChoice backend, const std::string& named);

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

}  // namespace commsweep
