// The text of `commsweep pairs --plan`: the topology, the rounds (pairs, rails, bytes on the
// wire), and the predicted wall time from the cost model. Pure.
#pragma once

#include <string>

#include "plan/cost_model.hpp"
#include "plan/planners.hpp"
#include "topology/network/topology.hpp"

namespace commsweep::plan {

struct PlanCost {
  double round_s = 0;           // one round
  double total_s = 0;           // every round
  double bytes_per_round = 0;   // on the wire, both directions, a full round (the largest)
};

PlanCost plan_cost(const Plan& plan, const CostModel& model, const RoundShape& shape, int rails_per_node);

// "1:02:03" (h:mm:ss), or "12:03" below an hour.
std::string clock_text(double seconds);

std::string render_plan(const Plan& plan, const Topology& topology, const CostModel& model, const RoundShape& shape,
                        int rails_per_node);

}  // namespace commsweep::plan
