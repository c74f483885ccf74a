// Transport verification of an NCCL run, on every rank. Before the communicator is made,
// NCCL's INFO lines start to be captured (fabric/nccl_log_capture.hpp); after it, a small
// all_reduce and alltoall make NCCL connect (NCCL 2.22 and later connect at a collective's
// first call, not at set-up), each rank reads its own lines, and rank 0 gathers them, prints a
// compact report before the tables and judges --require-transport / --require-gdr. An unmet
// requirement stops the run before anything is measured (exit code 6 from the command).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/fabric_run_options.hpp"
#include "fabric/nccl_log_capture.hpp"
#include "report/result.hpp"

namespace commsweep {

class Backend;
class Watchdog;
class World;

struct TransportOutcome {
  std::vector<std::string> lines;                // rank 0: the report, '#' lines
  std::optional<report::TransportReport> record;  // rank 0, nccl backend only
  bool failed = false;                           // every rank: a requirement was not met
};

class TransportCheck {
 public:
  // Before the backend is made. Captures only where NCCL may run: a build with the nccl
  // backend and a run that may choose it (not --backend mpi); elsewhere the environment is left
  // alone.
  TransportCheck(const FabricRunOptions& options, bool may_use_nccl);
  // After the backend is made, on every rank. With the mpi backend: nothing, or a usage Error
  // when a requirement was given (`why_mpi` says why auto chose mpi).
  TransportOutcome verify(World& world, Backend& backend, Watchdog& watchdog, double timeout_s,
                          const std::string& why_mpi);

 private:
  FabricRunOptions options_;
  std::unique_ptr<fabric::NcclLogCapture> capture_;
};

// Rank 0's part, for tests: the per-rank messages ({"status": "ok", "transport": {...}},
// {"status": "empty"} or {"status": "off", "note": ...}) turned into the report and verdict.
TransportOutcome judge_gathered(const std::vector<std::string>& messages, const FabricRunOptions& options);

}  // namespace commsweep
