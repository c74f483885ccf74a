#include "report/sheet_html.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "core/median.hpp"
#include "core/strings.hpp"
#include "report/heatmap_svg.hpp"

namespace commsweep::report {
namespace {

// The parts of a case that say where a figure was taken rather than what was measured: a
// matrix's axes, one node, one GPU. A figure's median is its metric's over the figures that
// differ from it in these parts only (nvlink: one host's pairs of one test).
bool sheet_place_part(const std::string& name) {
  return name == "src" || name == "dst" || name == "node_a" || name == "node_b" || name == "leaf_a" || name == "leaf_b" ||
         name == "node" || name == "gpu";
}

std::string sheet_median_key(const Figure& f) {
  std::string key = f.metric;
  for (const auto& p : f.parts)
    if (!sheet_place_part(p.name)) key += " " + p.name + "=" + p.value;
  return key;
}

std::string sheet_case_text(const Figure& f) {
  std::string out;
  for (const auto& p : f.parts) out += (out.empty() ? "" : " ") + p.name + "=" + p.value;
  return out;
}

// A figure's place in a matrix: its row's and column's values, where its case has the axes.
struct SheetCell {
  std::string row, column;
  bool directed = false;
};

std::optional<SheetCell> sheet_cell(const Figure& f) {
  std::map<std::string, std::string> parts;
  for (const auto& p : f.parts) parts[p.name] = p.value;
  if (parts.count("src") && parts.count("dst")) return SheetCell{parts["src"], parts["dst"], true};
  if (parts.count("node_a") && parts.count("node_b")) return SheetCell{parts["node_a"], parts["node_b"], false};
  // A pairs run above 64 nodes keeps its leaf x leaf medians, not its pairs (pairs/figures.cpp).
  if (parts.count("leaf_a") && parts.count("leaf_b")) return SheetCell{parts["leaf_a"], parts["leaf_b"], false};
  return std::nullopt;
}

// One heatmap's figures: a metric better higher, one value of the case's other parts.
struct SheetMatrix {
  std::string key;  // sheet_median_key
  bool directed = false;
  std::string unit;
  std::vector<const Figure*> figures;
};

// The order of the axes' values: the sheet's groups first (in their order), then numbers by
// value (GPU indexes, ranks), then text.
std::vector<std::string> sheet_axis_order(const SheetMatrix& m, const Sheet& sheet) {
  std::set<std::string> present;
  for (const Figure* f : m.figures) {
    const SheetCell c = *sheet_cell(*f);
    present.insert(c.row);
    present.insert(c.column);
  }
  std::vector<std::string> order;
  for (const auto& [value, group] : sheet.groups) {
    if (present.erase(value)) order.push_back(value);
  }
  std::vector<std::string> rest(present.begin(), present.end());
  const auto number = [](const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return std::make_pair(!s.empty() && *end == '\0', v);
  };
  std::stable_sort(rest.begin(), rest.end(), [&](const std::string& a, const std::string& b) {
    const auto x = number(a), y = number(b);
    if (x.first != y.first) return x.first;
    return x.first ? x.second < y.second : a < b;
  });
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

double sheet_slow_fraction(const Sheet& sheet) { return sheet.slow_fraction > 0 ? sheet.slow_fraction : 0.5; }

void sheet_value_heatmap(std::ostringstream& out, const Sheet& sheet, const SheetMatrix& m,
                         const std::vector<std::string>& order, double median) {
  std::map<std::string, int> position;
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  std::map<std::string, std::string> group_of(sheet.groups.begin(), sheet.groups.end());
  Heatmap map;
  map.cells.assign(order.size(), std::vector<double>(order.size(), -1));
  // Each value's label: the GPU it names where the figure says (nvlink: "GPU 1 (0000:07:00.0)").
  std::map<std::string, std::string> label;
  for (const Figure* f : m.figures) {
    const SheetCell c = *sheet_cell(*f);
    const int x = position[c.row], y = position[c.column];
    map.cells[x][y] = f->value;  // a case measured again: the last
    if (!c.directed) map.cells[y][x] = f->value;
    if (f->where.gpus.size() == 2) label.emplace(c.row, f->where.gpus[0]), label.emplace(c.column, f->where.gpus[1]);
  }
  std::string last_group;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto g = group_of.find(order[i]);
    map.labels.push_back(label.count(order[i]) ? label[order[i]] : order[i]);
    if (g == group_of.end()) continue;
    map.labels.back() += " (" + g->second + ")";
    if (map.group_starts.empty() || g->second != last_group) map.group_starts.push_back(static_cast<int>(i));
    last_group = g->second;
  }
  map.median = median;
  map.scale = {median, sheet_slow_fraction(sheet)};
  map.between = m.directed ? " -> " : " - ";
  write_heatmap_svg(out, map);
}

// The groups' matrix: each cell the lowest figure between two groups (within one on the diagonal).
void sheet_group_heatmap(std::ostringstream& out, const Sheet& sheet, const SheetMatrix& m, double median) {
  std::vector<std::string> groups;
  std::map<std::string, int> group_index;
  std::map<std::string, int> of;
  for (const auto& [value, group] : sheet.groups) {
    if (group_index.emplace(group, static_cast<int>(groups.size())).second) groups.push_back(group);
    of[value] = group_index[group];
  }
  if (groups.size() < 2) return;
  Heatmap map;
  map.labels = groups;
  map.cells.assign(groups.size(), std::vector<double>(groups.size(), -1));
  bool grouped = false;  // a matrix whose axes are not the groups' members (pairs' leaves) has none
  for (const Figure* f : m.figures) {
    const SheetCell c = *sheet_cell(*f);
    if (!of.count(c.row) || !of.count(c.column)) continue;
    grouped = true;
    const int x = of[c.row], y = of[c.column];
    for (const auto& [i, j] : {std::make_pair(x, y), std::make_pair(y, x)}) {
      if (m.directed && (i != x || j != y)) continue;
      double& cell = map.cells[i][j];
      cell = cell < 0 ? f->value : std::min(cell, f->value);
    }
  }
  if (!grouped) return;
  map.median = median;
  map.scale = {median, sheet_slow_fraction(sheet)};
  map.between = m.directed ? " -> " : " - ";
  out << "<h3>By group: each cell the lowest figure between two groups (within one on the diagonal)</h3>\n";
  write_heatmap_svg(out, map);
}

void sheet_heatmaps(std::ostringstream& out, const Sheet& sheet, const std::map<std::string, double>& medians) {
  std::vector<SheetMatrix> matrices;
  std::map<std::string, std::size_t> index;
  for (const Figure& f : sheet.figures) {
    const auto c = sheet_cell(f);
    if (!c || f.better != Better::Higher) continue;
    const std::string key = sheet_median_key(f);
    const auto [it, fresh] = index.emplace(key, matrices.size());
    if (fresh) matrices.push_back({key, c->directed, f.unit, {}});
    matrices[it->second].figures.push_back(&f);
  }
  for (const auto& m : matrices) {
    const double median = medians.at(m.key);
    const std::vector<std::string> order = sheet_axis_order(m, sheet);
    out << "<h2>" << xml_escape(m.key) << "</h2>\n<p>"
        << (m.directed ? "Rows src, columns dst" : "Each cell a pair, either order") << "; median " << fixed(median) << " "
        << xml_escape(m.unit) << " over " << count_of(m.figures.size(), "figure") << ".</p>\n";
    if (order.size() <= kHeatmapLabels) {
      sheet_value_heatmap(out, sheet, m, order, median);
    } else {
      out << "<p>" << order.size() << " rows: above " << kHeatmapLabels << " only the groups' matrix is drawn.</p>\n";
    }
    sheet_group_heatmap(out, sheet, m, median);
  }
}

// The lowest figures against their median, judged ones (better higher, not merely shown):
// every slow one up to kListed, and at least kShown, so that a healthy run shows its floor too.
void sheet_lowest(std::ostringstream& out, const Sheet& sheet, const std::map<std::string, double>& medians) {
  constexpr std::size_t kShown = 10, kListed = 50;
  std::vector<std::pair<double, const Figure*>> judged;
  std::size_t slow = 0;
  for (const Figure& f : sheet.figures) {
    if (f.better != Better::Higher || f.role == Role::Shown) continue;
    const double median = medians.at(sheet_median_key(f));
    judged.emplace_back(median > 0 ? f.value / median : 0, &f);
    slow += f.slow.value_or(false) ? 1 : 0;
  }
  out << "<h2>Lowest figures</h2>\n";
  if (judged.empty()) {
    out << "<p>No figure was measured.</p>\n";
    return;
  }
  std::stable_sort(judged.begin(), judged.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t shown = std::min({judged.size(), kListed, std::max(kShown, slow)});
  out << "<p>The " << shown << " lowest of " << count_of(judged.size(), "figure") << " against their median (" << slow
      << " slow).</p>\n"
      << "<table><tr><th>case</th><th>metric</th><th>value</th><th>x median</th><th>verdict</th><th>why</th></tr>\n";
  for (std::size_t k = 0; k < shown; ++k) {
    const Figure& f = *judged[k].second;
    std::string why;
    for (const auto& w : f.why) why += (why.empty() ? "" : "; ") + w;
    out << "<tr><td>" << xml_escape(sheet_case_text(f)) << "</td><td>" << xml_escape(f.metric) << "</td><td>"
        << fixed(f.value) << " " << xml_escape(f.unit) << "</td><td>" << fixed(judged[k].first) << "</td><td>"
        << (f.slow ? (*f.slow ? "slow" : "ok") : "-") << "</td><td>" << xml_escape(why) << "</td></tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

std::string render_sheet_html(const Sheet& sheet) {
  std::map<std::string, std::vector<double>> values;
  for (const Figure& f : sheet.figures) values[sheet_median_key(f)].push_back(f.value);
  std::map<std::string, double> medians;
  for (auto& [key, v] : values) medians[key] = median(std::move(v));

  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>commsweep " << xml_escape(sheet.workload)
      << "</title><style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;"
         "font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style></head><body>\n"
      << "<h1>commsweep " << xml_escape(sheet.workload) << ": " << count_of(sheet.nodes.size(), "node") << ", "
      << count_of(sheet.figures.size(), "figure") << "</h1>\n";
  if (!sheet.complete) {
    out << "<p><b>Incomplete</b>"
        << (sheet.interrupted_by.empty() ? "" : ": interrupted by " + xml_escape(sheet.interrupted_by))
        << (sheet.failure.empty() ? "" : ": " + xml_escape(sheet.failure)) << ".</p>\n";
  }
  if (sheet.wrong_total > 0) out << "<p><b>Wrong data</b>: " << sheet.wrong_total << " wrong elements.</p>\n";
  for (const auto& n : sheet.notes) out << "<p>" << xml_escape(n) << "</p>\n";
  out << "<h2>Findings</h2>\n<ul>\n";
  for (const auto& f : sheet.findings) out << "<li>" << xml_escape(f) << "</li>\n";
  if (sheet.findings.empty()) out << "<li>no finding</li>\n";
  out << "</ul>\n";
  sheet_heatmaps(out, sheet, medians);
  sheet_lowest(out, sheet, medians);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace commsweep::report
