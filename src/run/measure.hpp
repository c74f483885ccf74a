// The measuring run of one or several sweeps whose record is commsweep.results: `commsweep
// TEST...` and `commsweep ep` (one sweep), `commsweep suite` (one per entry of its file), any
// registered workload. Its steps (the lifecycle is run/measuring_run.hpp's):
//   --json writable and the keeper; every sweep checked against the job (a usage error names the
//   suite's sweep); the start (preflight, health, backend, each sweep's prepare(), preamble);
//   each sweep under its banner (a suite's), its rows into the one record; the ending (health
//   after, the file, the exit code: 1 wrong elements, 5 interrupted, else a sweep's verdict).
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
};

// Runs the sweeps READ returns (called once --json is checked and the keeper made, so that a
// flag's error comes before a suite file's) one after the other on one communicator; returns
// the exit code.
int run_sweeps(World& world, const RunRequest& request, const std::function<std::vector<RunSweep>()>& read, char** envp,
               RankContext& context);

// Usage and out-of-memory errors of `check` (buffers too large) prefixed with WHERE ("" leaves them as
// they are).
void check_sweep(World& world, const RunSweep& sweep);

}  // namespace commsweep
