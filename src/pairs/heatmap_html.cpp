#include "pairs/heatmap_html.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/strings.hpp"

namespace commsweep::pairs {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Red (0) through amber (the slow threshold) to green (the healthy reference and above), as
// fractions of that reference.
std::string colour(double ratio, double slow_fraction) {
  const double r = std::clamp(ratio, 0.0, 1.0);
  int red, green;
  if (r < slow_fraction) {
    red = 214, green = static_cast<int>(40 + 150 * r / slow_fraction);
  } else {
    const double t = (r - slow_fraction) / std::max(1e-9, 1 - slow_fraction);
    red = static_cast<int>(230 - 186 * t), green = static_cast<int>(190 - 30 * t);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", red, green, 60);
  return buf;
}

// The colour scale: green from `good` up, amber at the slow threshold (the higher of the two
// rules'), red at 0. Where the median is a bad node's (few nodes), the top-third pair's threshold
// is the higher, and green starts above it as far as it starts above the median's.
struct Scale {
  double good = 0;
  double slow_fraction = 0;
};

Scale scale_of(const PairsRun& run, const Analysis& a) {
  const double threshold = std::max(a.slow_below_gbps, a.slow_below_top_third_gbps);
  const double good = std::max(a.median_gbps, threshold / std::max(1e-9, run.settings.slow_fraction));
  return {good, good > 0 ? threshold / good : run.settings.slow_fraction};
}

// The colour scale beside a heatmap: the gradient from 0 to the healthy reference, with its
// three marks in GB/s (0, the slow threshold, the reference), so that a cell's colour reads as a
// figure without hovering over it.
void legend(std::ostringstream& out, const Scale& scale) {
  constexpr int kWidth = 240, kTop = 14, kHeight = 12, kSteps = 48;
  // Shifted right so that a threshold near 0 keeps its label on the page.
  out << "<div><svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth + 180 << "' height='" << kTop + kHeight + 22
      << "' font-size='10'><g transform='translate(60 0)'>\n";
  for (int i = 0; i < kSteps; ++i) {
    out << "<rect x='" << i * kWidth / kSteps << "' y='" << kTop << "' width='" << kWidth / kSteps + 1 << "' height='"
        << kHeight << "' fill='" << colour((i + 0.5) / kSteps, scale.slow_fraction) << "'/>\n";
  }
  // The threshold's label above the bar, the ends' below: they cannot overlap, wherever it falls.
  const int slow_x = static_cast<int>(scale.slow_fraction * kWidth);
  out << "<line x1='" << slow_x << "' y1='" << kTop - 3 << "' x2='" << slow_x << "' y2='" << kTop + kHeight
      << "' stroke='#222'/>\n<text x='" << slow_x << "' y='" << kTop - 5 << "' text-anchor='middle'>slow below "
      << fixed(scale.slow_fraction * scale.good) << " GB/s</text>\n"
      << "<text x='0' y='" << kTop + kHeight + 12 << "'>0</text>\n<text x='" << kWidth << "' y='" << kTop + kHeight + 12
      << "' text-anchor='middle'>" << fixed(scale.good) << " GB/s and up</text>\n</g></svg></div>\n";
}

// Cells: value (GB/s) or < 0 for none; groups: the index where each leaf starts. The labels
// run down the left and, turned, along the top: the band above the cells holds the columns'.
void heatmap(std::ostringstream& out, const std::vector<std::string>& labels, const std::vector<std::vector<double>>& cells,
             const std::vector<int>& group_starts, double median, const Scale& scale) {
  const int n = static_cast<int>(labels.size());
  const int cell = std::max(4, std::min(22, 720 / std::max(n, 1)));
  std::size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  // 6 px a character at font-size 10; the labels are left out when the cells are too small to read.
  const int margin = cell >= 8 ? static_cast<int>(std::min<std::size_t>(longest, 40) * 6 + 8) : 8;
  const int size = margin + n * cell + 10;
  legend(out, scale);
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << size << "' height='" << size << "' font-size='10'>\n";
  for (int i = 0; i < n && cell >= 8; ++i) {
    const double middle = margin + i * cell + cell * 0.75;
    out << "<text x='" << margin - 4 << "' y='" << middle << "' text-anchor='end'>" << escape(labels[i]) << "</text>\n";
    out << "<text transform='translate(" << middle << " " << margin - 4 << ") rotate(-90)'>" << escape(labels[i])
        << "</text>\n";
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double v = cells[i][j];
      if (v < 0) continue;
      out << "<rect x='" << margin + j * cell << "' y='" << margin + i * cell << "' width='" << cell << "' height='" << cell
          << "' fill='" << colour(scale.good > 0 ? v / scale.good : 0, scale.slow_fraction) << "'><title>" << escape(labels[i]) << " - "
          << escape(labels[j]) << ": " << fixed(v) << " GB/s, " << fixed(median > 0 ? v / median : 0) << " x median</title></rect>\n";
    }
  }
  for (std::size_t g = 0; g < group_starts.size(); ++g) {
    const int from = group_starts[g], to = g + 1 < group_starts.size() ? group_starts[g + 1] : n;
    out << "<rect x='" << margin + from * cell << "' y='" << margin + from * cell << "' width='" << (to - from) * cell
        << "' height='" << (to - from) * cell << "' fill='none' stroke='#222' stroke-width='1.5'/>\n";
  }
  out << "</svg>\n";
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
    out << "<tr><td>" << escape(run.nodes[p.node_a].name) << " - " << escape(run.nodes[p.node_b].name) << "</td><td>"
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
  out << "<h1>commsweep pairs: " << run.nodes.size() << " nodes, " << escape(run.pattern) << "</h1>\n<p>"
      << escape(topology_of(run).source) << ". Median rail " << fixed(a.median_gbps) << " GB/s over "
      << count_of(a.rails, "rail") << " of " << count_of(run.pairs.size(), "pair") << "; slow below " << fixed(run.settings.slow_fraction) << " x median"
      << " or below " << fixed(run.settings.slow_fraction_of_top_third) << " x the top-third pair (" << fixed(a.top_third_gbps)
      << " GB/s) (" << count_of(a.slow.size(), "slow pair") << ")." << (median_unreliable(a) ? " Few nodes: one bad node's rails can be the median." : "")
      << "</p>\n";
  if (!run.findings.empty()) {
    out << "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : run.findings) out << "<li><b>" << plan::finding_kind_name(f.kind) << "</b>: " << escape(f.why) << "</li>\n";
    out << "</ul>\n";
  }
  if (run.nodes.size() <= kHeatmapNodes) node_heatmap(out, run, a);
  if (!topology_of(run).flat()) leaf_heatmap(out, run, a);
  slowest_pairs(out, run, a);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace commsweep::pairs
