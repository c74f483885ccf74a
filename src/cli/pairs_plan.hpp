// `commsweep pairs --plan`: the plan and its predicted time without MPI (what it shares with the
// measuring run, the topology files read, the cost model and the --max-minutes refusal, is
// pairs/job_plan.hpp).
#pragma once

namespace commsweep {

// Prints the plan and its predicted time, and refuses (usage Error) one over --max-minutes.
int run_pairs_plan(int argc, char** argv);

}  // namespace commsweep
