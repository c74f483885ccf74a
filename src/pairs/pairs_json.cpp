#include "pairs/pairs_json.hpp"

#include "report/json.hpp"

namespace commsweep::pairs {
namespace {

using nlohmann::json;

json rail_json(const Rail& r) {
  return json{{"local_rank", r.local_rank}, {"rank_a", r.rank_a}, {"rank_b", r.rank_b},
              {"time_us_a", r.time_us_a},   {"time_us_b", r.time_us_b}, {"time_us", r.time_us},
              {"gbps", r.gbps},             {"wrong", r.wrong ? json(*r.wrong) : json(nullptr)}};
}

json pair_json(const PairMeasurement& p, const PairVerdict& v) {
  json rails = json::array();
  for (const auto& r : p.rails) rails.push_back(rail_json(r));
  return json{{"round", p.round},         {"node_a", p.node_a}, {"node_b", p.node_b},
              {"gbps", v.gbps},           {"slowest_rail", v.slowest_rail},
              {"ratio_to_median", v.ratio}, {"slow", v.slow}, {"rails", rails}};
}

// n x n, null on the diagonal and for pairs not measured (an interrupted run).
json matrix_json(const PairsRun& run, const Analysis& a) {
  const std::size_t n = run.nodes.size();
  json m = json::array();
  for (std::size_t i = 0; i < n; ++i) m.push_back(json(std::vector<json>(n, json(nullptr))));
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    const auto& p = run.pairs[i];
    m[p.node_a][p.node_b] = a.verdicts[i].gbps;
    m[p.node_b][p.node_a] = a.verdicts[i].gbps;
  }
  return m;
}

json summary_json(const PairsRun& run, const Analysis& a) {
  json slow = json::array();
  for (int i : a.slow) slow.push_back(json::array({run.pairs[i].node_a, run.pairs[i].node_b}));
  json suspects = json::array();
  for (const auto& s : a.suspects) {
    suspects.push_back({{"node", s.node}, {"name", run.nodes[s.node].name}, {"slow_pairs", s.slow_pairs},
                        {"pairs", s.pairs}, {"local_rank", s.local_rank}, {"rank", s.rank},
                        {"pci_bus_id", s.pci_bus_id}});
  }
  const bool checked = run.settings.check > 0;
  json summary{{"median_gbps", a.median_gbps},
              {"slow_below_gbps", a.slow_below_gbps},
              {"rails", a.rails},
              {"slow_pairs", slow},
              {"suspects", suspects},
              {"wrong_total", checked ? json(a.wrong_total) : json(nullptr)},
              {"complete", run.complete},
              {"interrupted_by", run.complete ? json(nullptr) : json(run.interrupted_by)},
              {"ok", run.complete && a.wrong_total == 0 && a.slow.empty()}};
  if (!run.failure.empty()) summary["failure"] = run.failure;
  return summary;
}

}  // namespace

json to_json(const PairsRun& run, const Analysis& a) {
  const Settings& s = run.settings;
  json nodes = json::array();
  for (const auto& n : run.nodes) nodes.push_back({{"name", n.name}, {"ranks", n.ranks}, {"pci_bus_ids", n.pci_bus_ids}});
  json rounds = json::array();
  for (const auto& r : run.rounds) {
    json pairs = json::array();
    for (const auto& p : r.pairs) pairs.push_back(json::array({p.a, p.b}));
    rounds.push_back({{"pairs", pairs}, {"sits_out", r.sits_out >= 0 ? json(r.sits_out) : json(nullptr)}});
  }
  json pairs = json::array();
  for (std::size_t i = 0; i < run.pairs.size(); ++i) pairs.push_back(pair_json(run.pairs[i], a.verdicts[i]));
  return json{{"schema", "commsweep.pairs/1"},
              {"provenance", report::provenance_json(run.provenance)},
              {"settings", {{"bytes", s.bytes}, {"count", s.count}, {"type", s.type}, {"iters", s.iters},
                            {"warmup", s.warmup}, {"check", s.check}, {"slow_fraction", s.slow_fraction}}},
              {"nodes", nodes},
              {"rounds", rounds},
              {"pairs", pairs},
              {"matrix_gbps", matrix_json(run, a)},
              {"summary", summary_json(run, a)}};
}

}  // namespace commsweep::pairs
