#include "pairs/heatmap_html.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "core/strings.hpp"
#include "report/heatmap_svg.hpp"

namespace commsweep::pairs {
namespace {

// The colour scale: green from `good` up, amber at the slow threshold (the higher of the two
// rules'), red at 0. Where the median is a bad node's (few nodes), the top-third pair's threshold
// is the higher, and green starts above it as far as it starts above the median's.
using Scale = report::HeatmapScale;

Scale scale_of(const PairsRun& run, const Analysis& a) {
  const double threshold = std::max(a.slow_below_gbps, a.slow_below_top_third_gbps);
  const double good = std::max(a.median_gbps, threshold / std::max(1e-9, run.settings.slow_fraction));
  return {good, good > 0 ? threshold / good : run.settings.slow_fraction};
}

// Cells: value (GB/s) or < 0 for none; groups: the index where each leaf starts.
void heatmap(std::ostringstream& out, std::vector<std::string> labels, std::vector<std::vector<double>> cells,
             std::vector<int> group_starts, double median, const Scale& scale) {
  report::Heatmap map;
  map.labels = std::move(labels);
  map.cells = std::move(cells);
  map.group_starts = std::move(group_starts);
  map.median = median;
  map.scale = scale;
  report::write_heatmap_svg(out, map);
}

// The slowest pairs, slow or not: every slow pair (up to kListed), and at least the kShown
// slowest, so that a healthy run shows its floor too.
void slowest_pairs(std::ostringstream& out, const PairsRun& run, const Analysis& a) {
  constexpr std::size_t kShown = 10, kListed = 50;
  out << "<h2>Slowest pairs</h2>\n";
  if (run.pairs.empty()) {
    out << "<p>No pair was measured.</p>\n";
    return;
  }
  std::vector<std::size_t> order(run.pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return a.verdicts[x].gbps < a.verdicts[y].gbps; });
  const std::size_t shown = std::min({order.size(), kListed, std::max(kShown, a.slow.size())});
  out << "<p>The " << shown << " slowest of " << count_of(run.pairs.size(), "pair") << " (" << a.slow.size()
      << " slow).</p>\n"
      << "<table><tr><th>pair</th><th>GB/s</th><th>x median</th><th>slowest rail</th><th>verdict</th></tr>\n";
  for (std::size_t k = 0; k < shown; ++k) {
    const auto& p = run.pairs[order[k]];
    const auto& v = a.verdicts[order[k]];
    out << "<tr><td>" << report::xml_escape(run.nodes[p.node_a].name) << " - " << report::xml_escape(run.nodes[p.node_b].name) << "</td><td>"
        << fixed(v.gbps) << "</td><td>" << fixed(v.ratio) << "</td><td>" << v.slowest_rail << "</td><td>"
        << (v.slow ? "slow" : "ok") << "</td></tr>\n";
  }
  out << "</table>\n";
}

void node_heatmap(std::ostringstream& out, const PairsRun& run, const Analysis& a) {
  const plan::Topology t = topology_of(run);
  std::vector<int> order, starts;
  for (const auto& leaf : t.leaves()) starts.push_back(static_cast<int>(order.size())), order.insert(order.end(), leaf.begin(), leaf.end());
  std::vector<int> position(run.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  std::vector<std::vector<double>> cells(order.size(), std::vector<double>(order.size(), -1));
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    const int x = position[run.pairs[i].node_a], y = position[run.pairs[i].node_b];
    cells[x][y] = cells[y][x] = a.verdicts[i].gbps;  // a pair measured again: the last
  }
  std::vector<std::string> labels;
  for (int n : order) labels.push_back(run.nodes[n].name + " (" + t.leaf_names[t.leaf_of[n]] + ")");
  out << "<h2>Pairs by leaf</h2>\n<p>Each cell a pair of nodes (its slowest rail), the nodes ordered by leaf, each leaf "
         "outlined: a bad node is a cross, a bad leaf uplink a leaf's row and column outside its square.</p>\n";
  heatmap(out, labels, cells, starts, a.median_gbps, scale_of(run, a));
}

void leaf_heatmap(std::ostringstream& out, const PairsRun& run, const Analysis& a) {
  const plan::Topology t = topology_of(run);
  const std::size_t l = static_cast<std::size_t>(t.leaf_count());
  std::vector<std::vector<std::vector<double>>> values(l, std::vector<std::vector<double>>(l));
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    const int x = t.leaf_of[run.pairs[i].node_a], y = t.leaf_of[run.pairs[i].node_b];
    values[x][y].push_back(a.verdicts[i].gbps);
    if (x != y) values[y][x].push_back(a.verdicts[i].gbps);
  }
  std::vector<std::vector<double>> cells(l, std::vector<double>(l, -1));
  for (std::size_t x = 0; x < l; ++x) {
    for (std::size_t y = 0; y < l; ++y) {
      if (!values[x][y].empty()) cells[x][y] = *std::min_element(values[x][y].begin(), values[x][y].end());
    }
  }
  out << "<h2>Leaves</h2>\n<p>Each cell the slowest pair between two leaves (within one on the diagonal).</p>\n";
  heatmap(out, t.leaf_names, cells, {}, a.median_gbps, scale_of(run, a));
}

}  // namespace

std::string render_html(const PairsRun& run, const Analysis& a) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>commsweep pairs</title><style>"
         "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:13px}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style></head><body>\n";
  out << "<h1>commsweep pairs: " << run.nodes.size() << " nodes, " << report::xml_escape(run.pattern) << "</h1>\n<p>"
      << report::xml_escape(topology_of(run).source) << ". Median rail " << fixed(a.median_gbps) << " GB/s over "
      << count_of(a.rails, "rail") << " of " << count_of(run.pairs.size(), "pair") << "; slow below " << fixed(run.settings.slow_fraction) << " x median"
      << " or below " << fixed(run.settings.slow_fraction_of_top_third) << " x the top-third pair (" << fixed(a.top_third_gbps)
      << " GB/s) (" << count_of(a.slow.size(), "slow pair") << ")." << (median_unreliable(a) ? " Few nodes: one bad node's rails can be the median." : "")
      << "</p>\n";
  if (!run.findings.empty()) {
    out << "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : run.findings) out << "<li><b>" << plan::finding_kind_name(f.kind) << "</b>: " << report::xml_escape(f.why) << "</li>\n";
    out << "</ul>\n";
  }
  if (run.nodes.size() <= kHeatmapNodes) node_heatmap(out, run, a);
  if (!topology_of(run).flat()) leaf_heatmap(out, run, a);
  slowest_pairs(out, run, a);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace commsweep::pairs
