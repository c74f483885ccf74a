// The topology and the plan of `commsweep pairs` on this job (pairs/job_plan.hpp).
#include "pairs/job_plan.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/strings.hpp"
#include "core/text_file.hpp"
#include "pairs/job.hpp"
#include "pairs/schedule.hpp"
#include "plan/plan_text.hpp"
#include "topology/network/topology_readers.hpp"
#include "report/json.hpp"
#include "core/error.hpp"

namespace commsweep::pairs {
namespace {

// Each node's name for the topology: COMMSWEEP_NODE_NAME of its first rank where set (in a pod
// the Kubernetes node name, from the downward API's spec.nodeName: the pod's host name is the
// pod's), else its host ("host", or "host/HOSTID" for an emulated node).
std::vector<std::string> node_names(World& world, const PairsSettings& o) {
  const char* env = std::getenv("COMMSWEEP_NODE_NAME");
  const auto given = world.gather(std::string(env != nullptr ? env : ""), Phase{"pairs setup (node names)", Deadline::after(o.timeout_s)});
  std::string joined;
  for (const auto& g : given) joined += g + "\n";
  joined = from_rank0(world, o.timeout_s, [&] { return joined; });
  std::vector<std::string> per_rank;
  for (std::size_t at = 0, end; (end = joined.find('\n', at)) != std::string::npos; at = end + 1) {
    per_rank.push_back(joined.substr(at, end - at));
  }
  std::vector<std::string> names;
  for (const auto& ranks : ranks_by_node(node_of_every_rank(world))) {
    const int first = ranks.front();
    const bool named = first < static_cast<int>(per_rank.size()) && !per_rank[first].empty();
    names.push_back(named ? per_rank[first] : world.hosts_by_rank()[first]);
  }
  return names;
}

}  // namespace

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

plan::CostModel cost_model_of(const PairsSettings& o) {
  if (o.cost_from.empty()) return plan::CostModel{};
  try {
    return plan::fit_cost_model(report::read_json_file(o.cost_from), o.cost_from);  // names the file, no raw parser tag
  } catch (const std::exception& e) {
    throw_usage(std::string("pairs: --cost-from: ") + e.what());
  }
}

plan::RoundShape round_shape_of(const PairsSettings& o) { return {o.bytes / 4 * 4, o.warmup, o.iters, o.check}; }

void refuse_over_limit(const PairsSettings& o, const plan::Plan& p, const plan::CostModel& model, int rails) {
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

// The job's nodes on the topology of --topology (rank 0 reads the files), or one flat group.
plan::Topology job_topology(World& world, const PairsSettings& o) {
  const auto names = node_names(world, o);
  if (o.topology_files.empty()) return plan::flat_topology(names);
  std::string source;
  for (const auto& f : o.topology_files) source += (source.empty() ? "" : " + ") + f;
  const std::string text = from_rank0(world, o.timeout_s, [&] { return read_topology_files(o.topology_files).text; });
  try {
    return plan::bind(parse_topology_text({text, source}), names);
  } catch (const plan::TopologyError& e) {
    throw_usage(std::string("pairs: --topology: ") + e.what());
  }
}

// The pattern's rounds on this topology; none (cross-leaf on one flat group) is a usage error.
plan::Plan job_plan(const PairsSettings& o, const plan::Topology& topology) {
  plan::PatternSpec spec = plan::parse_pattern(o.pattern);
  spec.seed = o.seed;
  plan::Plan p = plan::make_plan(spec, topology);
  if (p.rounds.empty()) {
    // The note says why (and names --topology) where there is one; the source would say it again.
    throw_usage("pairs: --pattern " + o.pattern + ": no pair to measure on " +
                (p.notes.empty() ? topology.source
                                 : count_of(static_cast<std::size_t>(topology.node_count()), "node") + ": " +
                                       p.notes.front()));
  }
  return p;
}

PairsRun planned_run(const World& world, const PairsSettings& s, const plan::Plan& plan, plan::Topology topology) {
  PairsRun run;
  run.settings = {s.bytes / 4 * 4, s.bytes / 4, "float", s.iters, s.warmup, s.check, s.slow_fraction,
                  s.slow_fraction_of_top_third};
  run.nodes = describe_nodes(world, run.provenance);
  run.pattern = plan.pattern;
  run.topology = std::move(topology);
  run.rounds = plan.rounds;
  run.planned_rounds = static_cast<int>(plan.rounds.size());
  return run;
}

}  // namespace commsweep::pairs
