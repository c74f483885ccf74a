// The topology and the plan of `commsweep pairs`: --topology's files read, the job's nodes named
// and bound to their leaves and blocks, --pattern's rounds on it, and their predicted time
// (--cost-from, --max-minutes); `pairs --plan` (run/pairs_plan) shares all but the job.
#pragma once

#include <string>
#include <vector>

#include "pairs/record.hpp"
#include "pairs/settings.hpp"
#include "plan/cost_model.hpp"
#include "plan/planners.hpp"
#include "topology/network/topology.hpp"
#include "runtime/world.hpp"

namespace commsweep::pairs {

// The topology files' text (several: their YAML documents together) and a name for messages.
struct TopologyText {
  std::string text;
  std::string source;
};
TopologyText read_topology_files(const std::vector<std::string>& files);  // throws a usage Error

// The placements of `text`, parsed; a usage Error naming the file for bad input.
plan::NamedTopology parse_topology_text(const TopologyText& text);

// Fitted to --cost-from, or the documented default.
plan::CostModel cost_model_of(const PairsSettings& o);
plan::RoundShape round_shape_of(const PairsSettings& o);

// A usage Error when the plan's predicted time is over --max-minutes.
void refuse_over_limit(const PairsSettings& o, const plan::Plan& plan, const plan::CostModel& model, int rails);

// The job's nodes on the topology of --topology (rank 0 reads the files), or one flat group.
plan::Topology job_topology(World& world, const PairsSettings& s);

// The pattern's rounds on this topology; none (cross-leaf on one flat group) is a usage error.
plan::Plan job_plan(const PairsSettings& s, const plan::Topology& topology);

// The run as planned, before anything is measured: its settings, nodes (without their GPUs:
// the provenance comes with the set-up), pattern, topology and rounds.
PairsRun planned_run(const World& world, const PairsSettings& s, const plan::Plan& plan, plan::Topology topology);

}  // namespace commsweep::pairs
