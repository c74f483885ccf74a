// `commsweep pairs`'s measurement step in the one lifecycle (run/measure.hpp), alone or as a
// suite's sweep: the job's topology and plan (checked before anything runs), the rounds with
// rank 0's printer (a line per round, the progress line, each round's record to the keeper of
// its own file when alone), and its report: the matrix, its findings, --html and the
// commsweep.pairs document.
#pragma once

#include <string>
#include <vector>

#include "pairs/settings.hpp"
#include "pairs/record.hpp"
#include "plan/planners.hpp"
#include "run/document_keeper.hpp"
#include "run/workload.hpp"

namespace commsweep {

// What the job's check learns: the plan of rounds, and the run as planned (its settings, its
// nodes and their topology, the rounds), which is what the document says before the set-up.
struct PairsJob {
  plan::Plan plan;
  pairs::PairsRun planned;
};

// The usage checks of a pairs run (at least 2 nodes, the topology files, the plan within
// --max-minutes, the planted faults within the job), on every rank; returns the job's plan.
PairsJob check_pairs_job(World& world, const pairs::PairsSettings& settings);

// Alone with --json: the run as planned, to the keeper of its document.
void plan_pairs_document(DocumentKeeper& keeper, const PairsJob& job);

// The rounds of JOB on the run's backend, rank 0 printing them; rank 0's outcome: the slow pairs
// as the health findings' evidence, and its report (the matrix and findings, --html, the
// commsweep.pairs document; the verdict 10 for a slow pair).
Outcome run_pairs_stage(Stage& stage, const pairs::PairsSettings& settings, PairsJob job);

// `commsweep pairs --plan`: the plan and its predicted time without MPI; refuses (usage Error)
// one over --max-minutes. Returns the exit code.
int run_pairs_plan(const pairs::PairsSettings& settings);

}  // namespace commsweep
