#include "pairs/pairs_json.hpp"

#include <algorithm>
#include <cmath>

#include "pairs/render.hpp"
#include "report/gpu_window.hpp"
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
  json j{{"round", p.round},         {"node_a", p.node_a}, {"node_b", p.node_b},
         {"gbps", v.gbps},           {"slowest_rail", v.slowest_rail},
         {"ratio_to_median", v.ratio}, {"ratio_to_top_third", v.ratio_to_top_third},
         {"slow", v.slow}, {"rails", rails}};
  // Only where a GPU was read, as the sweeps' halves.
  if (!p.gpu_state.empty()) {
    json windows = json::array();
    for (const auto& w : p.gpu_state) windows.push_back(report::gpu_window_json(w));
    j["gpu_state"] = windows;
  }
  return j;
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

// Per node: its pairs, slow pairs, slowest and median pair (GB/s, per pair its slowest rail).
json node_summary_json(const PairsRun& run, const Analysis& a) {
  std::vector<std::vector<double>> gbps(run.nodes.size());
  std::vector<int> slow(run.nodes.size(), 0);
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    for (int n : {run.pairs[i].node_a, run.pairs[i].node_b}) {
      gbps[n].push_back(a.verdicts[i].gbps);
      slow[n] += a.verdicts[i].slow;
    }
  }
  json out = json::array();
  for (std::size_t n = 0; n < run.nodes.size(); ++n) {
    const bool none = gbps[n].empty();
    out.push_back({{"node", n}, {"pairs", gbps[n].size()}, {"slow_pairs", slow[n]},
                   {"min_gbps", none ? json(nullptr) : json(*std::min_element(gbps[n].begin(), gbps[n].end()))},
                   {"median_gbps", none ? json(nullptr) : json(median(gbps[n]))}});
  }
  return out;
}

// Leaf x leaf: the median pair between (or within, on the diagonal) two leaves, null where no
// pair was measured: the heatmap by leaf. Per leaf: its pairs within and across, slow pairs.
void leaf_json(const PairsRun& run, const Analysis& a, json& doc) {
  const plan::Topology topology = topology_of(run);
  const std::size_t leaves = static_cast<std::size_t>(topology.leaf_count());
  std::vector<std::vector<std::vector<double>>> cells(leaves, std::vector<std::vector<double>>(leaves));
  std::vector<int> slow(leaves, 0), within(leaves, 0), across(leaves, 0);
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    const int la = topology.leaf_of[run.pairs[i].node_a], lb = topology.leaf_of[run.pairs[i].node_b];
    cells[std::min(la, lb)][std::max(la, lb)].push_back(a.verdicts[i].gbps);
    for (int l : {la, lb}) {
      ++(la == lb ? within : across)[l];
      slow[l] += a.verdicts[i].slow;
      if (la == lb) break;  // a pair within a leaf counts once
    }
  }
  json matrix = json::array(), summary = json::array();
  for (std::size_t x = 0; x < leaves; ++x) {
    json row = json::array();
    for (std::size_t y = 0; y < leaves; ++y) {
      const auto& c = cells[std::min(x, y)][std::max(x, y)];
      row.push_back(c.empty() ? json(nullptr) : json(median(c)));
    }
    matrix.push_back(row);
    summary.push_back({{"leaf", x}, {"name", topology.leaf_names[x]},
                       {"block", topology.block_names[topology.block_of_leaf[x]]},
                       {"pairs_within", within[x]}, {"pairs_across", across[x]}, {"slow_pairs", slow[x]}});
  }
  doc["leaf_summary"] = summary;
  doc["leaf_matrix_gbps"] = matrix;
}

// How the pairs spread around the median: counts per tenth of the median, the last bin open.
json distribution_json(const Analysis& a) {
  constexpr int kBins = 15;  // 0 .. 1.5 x median in tenths, then 1.5 and above
  std::vector<std::uint64_t> counts(kBins + 1, 0);
  for (const auto& v : a.verdicts) {
    const int bin = static_cast<int>(std::floor(v.ratio * 10));
    ++counts[static_cast<std::size_t>(std::clamp(bin, 0, kBins))];
  }
  std::vector<double> lower;
  for (int b = 0; b <= kBins; ++b) lower.push_back(b / 10.0);
  return {{"ratio_to_median_from", lower}, {"pairs", counts}};
}

json topology_json(const PairsRun& run) {
  const plan::Topology topology = topology_of(run);
  json leaves = json::array();
  const auto members = topology.leaves();
  for (std::size_t l = 0; l < members.size(); ++l) {
    leaves.push_back({{"name", topology.leaf_names[l]},
                      {"block", topology.block_names[topology.block_of_leaf[l]]},
                      {"nodes", members[l]}});
  }
  return {{"source", topology.source}, {"notes", topology.notes}, {"leaves", leaves}};
}

json findings_json(const PairsRun& run) {
  json out = json::array();
  for (const auto& f : run.findings) {
    json j{{"kind", plan::finding_kind_name(f.kind)}, {"why", f.why}};
    if (f.node >= 0) j["node"] = f.node, j["node_name"] = run.topology.nodes[f.node];
    if (f.other >= 0) j["other"] = f.other, j["other_name"] = run.topology.nodes[f.other];
    if (f.leaf >= 0) j["leaf"] = f.leaf, j["leaf_name"] = run.topology.leaf_names[f.leaf];
    out.push_back(j);
  }
  return out;
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
  const json top = a.top_third < 0 ? json(nullptr)
                                   : json::array({run.pairs[a.top_third].node_a, run.pairs[a.top_third].node_b});
  json summary{{"median_gbps", a.median_gbps},
              {"slow_below_gbps", a.slow_below_gbps},
              {"top_third_gbps", a.top_third_gbps},
              {"top_third_pair", top},
              {"slow_below_top_third_gbps", a.slow_below_top_third_gbps},
              {"median_reliable", !median_unreliable(a)},
              {"rails", a.rails},
              {"slow_pairs", slow},
              {"suspects", suspects},
              {"gpu_state_findings", gpu_state_findings(run, a)},
              {"wrong_total", checked ? json(a.wrong_total) : json(nullptr)},
              {"complete", run.complete},
              {"interrupted_by", run.complete ? json(nullptr) : json(run.interrupted_by)},
              {"ok", run.complete && a.wrong_total == 0 && a.slow.empty() && run.health_fail.empty()}};
  if (!run.failure.empty()) summary["failure"] = run.failure;
  if (!run.health_fail.empty()) summary["health_fail"] = run.health_fail;
  return summary;
}

}  // namespace

bool full_detail(const PairsRun& run) { return run.nodes.size() <= kFullDetailNodes; }

json to_json(const PairsRun& run, const Analysis& a) { return to_json(run, a, full_detail(run)); }

json report_json(const PairsRun& run, const Analysis& a) { return to_json(run, a, run.nodes.size() <= kReportFullNodes); }

json to_json(const PairsRun& run, const Analysis& a, bool full) {
  const Settings& s = run.settings;
  json nodes = json::array();
  for (const auto& n : run.nodes) nodes.push_back({{"name", n.name}, {"ranks", n.ranks}, {"pci_bus_ids", n.pci_bus_ids}});
  json rounds = json::array();
  for (std::size_t i = 0; i < run.rounds.size(); ++i) {
    const auto& r = run.rounds[i];
    json round{{"pair_count", r.pairs.size()}, {"sits_out", r.sits_out >= 0 ? json(r.sits_out) : json(nullptr)},
               {"label", r.label}, {"wall_s", i < run.round_wall_s.size() ? json(run.round_wall_s[i]) : json(nullptr)}};
    if (full) {
      json pairs = json::array();
      for (const auto& p : r.pairs) pairs.push_back(json::array({p.a, p.b}));
      round["pairs"] = pairs;
    }
    rounds.push_back(round);
  }
  // Sparse: only the slow pairs carry their rails; the rest are in the summaries below.
  json pairs = json::array();
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    if (full || a.verdicts[i].slow) pairs.push_back(pair_json(run.pairs[i], a.verdicts[i]));
  }
  json doc{{"schema", kPairsSchema},
           {"detail", full ? "full" : "sparse"},
           {"provenance", report::provenance_json(run.provenance)},
           {"settings", {{"bytes", s.bytes}, {"count", s.count}, {"type", s.type}, {"iters", s.iters},
                         {"warmup", s.warmup}, {"check", s.check}, {"slow_fraction", s.slow_fraction},
                         {"slow_fraction_of_top_third", s.slow_fraction_of_top_third}}},
           {"pattern", run.pattern},
           {"planned_rounds", run.planned_rounds},
           {"topology", topology_json(run)},
           {"nodes", nodes},
           {"rounds", rounds},
           {"pairs", pairs},
           {"pairs_measured", run.pairs.size()},
           {"node_summary", node_summary_json(run, a)},
           {"distribution", distribution_json(a)},
           {"findings", findings_json(run)},
           {"summary", summary_json(run, a)}};
  leaf_json(run, a, doc);
  if (full) doc["matrix_gbps"] = matrix_json(run, a);
  return doc;
}

}  // namespace commsweep::pairs
