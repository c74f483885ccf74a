// The one measuring lifecycle of every workload, alone (`commsweep TEST...`, `ep`, `pairs`,
// `nvlink`, any registered workload: one sweep) or in a suite (`commsweep suite`: one per entry
// of its file); a workload plugs in its measurement step (Measurement::run) and nothing else.
// Its steps (the lifecycle is run/measuring_run.hpp's):
//   --json writable and the keeper; every sweep checked against the job (a usage error names the
//   suite's sweep); the start (preflight, health, backend, each sweep's prepare(), preamble);
//   each sweep under its banner (a suite's), its rows into the one record; the ending (health
//   after, the file, the exit code: 8 wrong elements, 5 interrupted, else a sweep's verdict).
// Its file is commsweep.results, but for a workload with a document of its own run alone
// (Workload::schema: pairs, nvlink): that document, its report after the health snapshot.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "run/measuring_run.hpp"
#include "run/workload.hpp"

namespace commsweep {

// One sweep of a measuring run (its measurement owned by the caller).
struct RunSweep {
  std::string name;   // a suite's name of it ("" for a command alone: no banner)
  std::string where;  // "FILE:LINE: sweep 2 \"big\"", before its usage and out-of-memory errors ("" alone)
  Measurement* measurement = nullptr;
  // Its workload's entry (a workload with a document: its `figures`, which its --html and
  // --prometheus are drawn from) and those files (run/report_files.hpp), written by the lifecycle.
  const Workload* workload = nullptr;
  ReportFiles reports;
};

// Runs the sweeps READ returns (called once --json is checked and the keeper made, so that a
// flag's error comes before a suite file's) one after the other on one communicator, their
// record the results file; returns the exit code.
int run_sweeps(World& world, const RunRequest& request, const std::function<std::vector<RunSweep>()>& read, char** envp,
               RankContext& context);

// `commsweep NAME` alone: MEASUREMENT (WORKLOAD's, read from the command line with RUN's
// settings) as the one sweep of a run, without a banner; returns the exit code.
int run_alone(World& world, const Workload& workload, Measurement& measurement, const RunSettings& run,
              const std::vector<std::string>& arguments, char** envp, RankContext& context);

// Usage and out-of-memory errors of `check` (buffers too large) prefixed with WHERE ("" leaves them as
// they are).
void check_sweep(World& world, const RunSweep& sweep);

}  // namespace commsweep
