// `commsweep pairs` in a measuring run: the job's topology and plan (checked before anything
// runs), the rounds with rank 0's printer (a line per round, the progress line), the matrix, its
// findings and its exit code; alone with a record of its own (commsweep.pairs through the
// PairsKeeper), or as a suite's sweep (its document in the suite's results, "pairs").
#pragma once

#include <string>
#include <vector>

#include "pairs/settings.hpp"
#include "plan/planners.hpp"
#include "plan/topology.hpp"
#include "run/measuring_run.hpp"
#include "run/workload.hpp"

namespace commsweep {

// What the job's check learns: its nodes' topology and the plan of rounds.
struct PairsJob {
  plan::Topology topology;
  plan::Plan plan;
};

// The usage checks of a pairs run (at least 2 nodes, the topology files, the plan within
// --max-minutes, the planted faults within the job), on every rank; returns the job's plan.
PairsJob check_pairs_job(World& world, const pairs::PairsSettings& settings);

// `commsweep pairs` alone: the lifecycle with its own record and keeper; returns the exit code.
int run_pairs_alone(World& world, const RunRequest& request, const pairs::PairsSettings& settings, PairsJob job,
                    char** envp, RankContext& context);

// A suite's pairs sweep: the rounds on the run's backend, the matrix and findings on rank 0, the
// pairs document into results.documents; the verdict (6 for a slow pair) and the slow pairs as the
// health findings' evidence.
Outcome run_pairs_stage(Stage& stage, const pairs::PairsSettings& settings, PairsJob job, report::Results& results);

// `commsweep pairs --plan`: the plan and its predicted time without MPI; refuses (usage Error)
// one over --max-minutes. Returns the exit code.
int run_pairs_plan(const pairs::PairsSettings& settings);

}  // namespace commsweep
