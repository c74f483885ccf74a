#include "cli/pairs_plan.hpp"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/text_file.hpp"
#include "plan/plan_text.hpp"
#include "plan/topology_readers.hpp"
#include "runtime/error.hpp"
#include "report/json.hpp"

namespace commsweep {

TopologyText read_topology_files(const std::vector<std::string>& files) {
  TopologyText out;
  for (const auto& file : files) {
    try {
      const std::string text = read_bounded_file(file);
      out.text += out.text.empty() ? text : "\n---\n" + text;
    } catch (const std::runtime_error& e) {
      throw_usage(std::string("pairs: --topology: ") + e.what());
    }
    out.source += (out.source.empty() ? "" : " + ") + file;
  }
  return out;
}

plan::NamedTopology parse_topology_text(const TopologyText& text) {
  try {
    return plan::parse_topology(text.text, text.source);
  } catch (const plan::TopologyError& e) {
    throw_usage(std::string("pairs: --topology: ") + e.what());
  }
}

plan::CostModel cost_model_of(const PairsOptions& o) {
  if (o.cost_from.empty()) return plan::CostModel{};
  try {
    return plan::fit_cost_model(report::read_json_file(o.cost_from), o.cost_from);  // names the file, no raw parser tag
  } catch (const std::exception& e) {
    throw_usage(std::string("pairs: --cost-from: ") + e.what());
  }
}

plan::RoundShape round_shape_of(const PairsOptions& o) { return {o.bytes / 4 * 4, o.warmup, o.iters, o.check}; }

void refuse_over_limit(const PairsOptions& o, const plan::Plan& p, const plan::CostModel& model, int rails) {
  if (o.max_minutes <= 0) return;
  const plan::PlanCost cost = plan::plan_cost(p, model, round_shape_of(o), rails);
  if (cost.total_s <= o.max_minutes * 60) return;
  char text[512];
  std::snprintf(text, sizeof text,
                "pairs: --max-minutes %g: the %s plan over %d nodes is predicted to take %.1f minutes (%zu rounds x "
                "%.3f s; %s): choose --pattern sample:K or bisection, fewer -n/-w, or a smaller -s",
                o.max_minutes, p.pattern.c_str(), p.nodes, cost.total_s / 60, p.rounds.size(), cost.round_s,
                model.source.c_str());
  throw_usage(text);
}

int run_pairs_plan(int argc, char** argv) {
  const PairsOptions o = parse_pairs_options(argc, argv);
  if (o.help) {
    std::cout << pairs_help_text();
    return 0;
  }
  plan::Topology topology;
  if (!o.topology_files.empty()) {
    try {
      topology = plan::bind_all(parse_topology_text(read_topology_files(o.topology_files)));
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
  const plan::CostModel model = cost_model_of(o);
  std::cout << plan::render_plan(p, topology, model, round_shape_of(o), o.gpus_per_node);
  if (o.adaptive) {
    std::cout << "# --adaptive: follow-up rounds for the slow pairs come on top (a few rounds per finding; not "
                 "predicted: they depend on what is found)\n";
  }
  std::cout << std::flush;
  refuse_over_limit(o, p, model, o.gpus_per_node);
  return 0;
}

}  // namespace commsweep
