// `commsweep pairs --plan` (run/pairs_run.hpp): what it shares with the measuring run, the
// topology files read, the cost model and the --max-minutes refusal, is pairs/job_plan.hpp.
#include "run/pairs_run.hpp"

#include <iostream>

#include "pairs/job_plan.hpp"
#include "plan/plan_text.hpp"
#include "topology/network/topology_readers.hpp"
#include "core/error.hpp"

namespace commsweep {

int run_pairs_plan(const pairs::PairsSettings& o) {
  plan::Topology topology;
  if (!o.topology_files.empty()) {
    try {
      topology = plan::bind_all(pairs::parse_topology_text(pairs::read_topology_files(o.topology_files)));
    } catch (const plan::TopologyError& e) {
      throw_usage(std::string("pairs: --topology: ") + e.what());
    }
  } else if (o.per_leaf > 0) {
    topology = plan::synthetic_topology(o.plan_nodes, o.per_leaf, o.leaves_per_block);
  } else {
    topology = plan::flat_topology(o.plan_nodes);
  }
  if (topology.node_count() < 2) throw_usage("pairs: --plan: " + topology.source + ": fewer than 2 nodes");
  plan::PatternSpec spec = plan::parse_pattern(o.pattern);
  spec.seed = o.seed;
  const plan::Plan p = plan::make_plan(spec, topology);
  const plan::CostModel model = pairs::cost_model_of(o);
  std::cout << plan::render_plan(p, topology, model, pairs::round_shape_of(o), o.gpus_per_node);
  if (o.adaptive) {
    std::cout << "# --adaptive: follow-up rounds for the slow pairs come on top (a few rounds per finding; not "
                 "predicted: they depend on what is found)\n";
  }
  std::cout << std::flush;
  pairs::refuse_over_limit(o, p, model, o.gpus_per_node);
  return 0;
}

}  // namespace commsweep
