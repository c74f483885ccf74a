// `commsweep pairs --plan`: the plan and its predicted time without MPI; and what the measuring
// run shares with it: the topology files read, the cost model, the --max-minutes refusal.
#pragma once

#include <string>
#include <vector>

#include "cli/pairs_options.hpp"
#include "plan/cost_model.hpp"
#include "plan/planners.hpp"
#include "plan/topology.hpp"

namespace commsweep {

// The topology files' text (several: their YAML documents together) and a name for messages.
struct TopologyText {
  std::string text;
  std::string source;
};
TopologyText read_topology_files(const std::vector<std::string>& files);  // throws a usage Error

// The placements of `text`, parsed; a usage Error naming the file for bad input.
plan::NamedTopology parse_topology_text(const TopologyText& text);

// Fitted to --cost-from, or the documented default.
plan::CostModel cost_model_of(const PairsOptions& o);
plan::RoundShape round_shape_of(const PairsOptions& o);

// A usage Error when the plan's predicted time is over --max-minutes.
void refuse_over_limit(const PairsOptions& o, const plan::Plan& plan, const plan::CostModel& model, int rails);

int run_pairs_plan(int argc, char** argv);

}  // namespace commsweep
