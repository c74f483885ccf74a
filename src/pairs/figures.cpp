#include "pairs/figures.hpp"

#include <algorithm>
#include <tuple>
#include <stdexcept>

#include "core/strings.hpp"
#include "report/json.hpp"
#include "report/json_fields.hpp"

namespace commsweep::pairs {
namespace {

using nlohmann::json;
using namespace report::fields;

const std::string& pairs_figure_node(const std::vector<std::string>& names, std::uint64_t index, const std::string& path) {
  if (index >= names.size()) throw std::runtime_error("field \"" + path + "\" names no node of \"nodes\"");
  return names[index];
}

report::Figure pairs_figure(std::vector<report::CasePart> parts, std::vector<std::string> nodes,
                            const report::Series& series) {
  report::Figure f;
  f.workload = "pairs";
  f.parts = std::move(parts);
  f.where.nodes = std::move(nodes);
  f.series = series;
  return f;
}

report::Figure pairs_bandwidth(report::Figure f, const char* metric, double gbps, double bytes) {
  f.metric = metric;
  f.value = gbps;
  f.unit = "GB/s";
  f.better = report::Better::Higher;
  f.role = report::Role::Bandwidth;
  f.bytes = bytes;
  return f;
}

// Above 64 nodes a document holds its slow pairs only (pairs/pairs_json.hpp, kFullDetailNodes):
// each node is judged by the median and the slowest of its pairs (node_summary).
void pairs_node_figures(const json& doc, const std::vector<std::string>& names, const report::Series& base,
                        report::Sheet& sheet) {
  const json& summary = array_member(doc, "node_summary", "");
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const std::string at = "node_summary[" + std::to_string(i) + "]";
    report::Series series = base;
    series.config = pairs_figure_node(names, count_of(summary[i], "node", at), at + ".node");
    for (const auto& [place, field, metric] :
         {std::tuple{"node_median", "median_gbps", "median_bandwidth"}, std::tuple{"node_min", "min_gbps", "min_bandwidth"}}) {
      const json& gbps = member(summary[i], field, at);
      if (!gbps.is_number()) continue;  // a node of no measured pair
      series.place = place;
      sheet.figures.push_back(pairs_bandwidth(pairs_figure({{"node", series.config}}, {series.config}, series), metric,
                                              gbps.get<double>(), static_cast<double>(series.size)));
    }
  }
}

// Above 64 nodes, the leaf x leaf matrix of the document (the median pair between, or within,
// two leaves; null where none was measured) as figures shown, not judged: the HTML's heatmap by
// leaf where no pair's figure is kept (report/sheet_html.hpp: leaf_a, leaf_b). Either order
// names one cell; the diagonal is a leaf's pairs within it.
void pairs_leaf_figures(const json& doc, const report::Series& base, report::Sheet& sheet) {
  if (!doc.contains("leaf_matrix_gbps") || !doc.contains("leaf_summary")) return;
  const json& summary = array_member(doc, "leaf_summary", "");
  const json& matrix = array_member(doc, "leaf_matrix_gbps", "");
  std::vector<std::string> leaves;
  for (std::size_t i = 0; i < summary.size(); ++i) leaves.push_back(text_of(summary[i], "name", "leaf_summary[" + std::to_string(i) + "]"));
  if (leaves.size() < 2) return;  // one leaf: the node summary says it all
  for (std::size_t a = 0; a < matrix.size() && a < leaves.size(); ++a) {
    const std::string at = "leaf_matrix_gbps[" + std::to_string(a) + "]";
    if (!matrix[a].is_array()) throw std::runtime_error("field \"" + at + "\" is not an array");
    for (std::size_t b = a; b < matrix[a].size() && b < leaves.size(); ++b) {
      if (!matrix[a][b].is_number()) continue;
      report::Series series = base;
      series.config = leaves[a] + " <-> " + leaves[b];
      series.place = "leaf_median";
      report::Figure f = pairs_bandwidth(pairs_figure({{"leaf_a", leaves[a]}, {"leaf_b", leaves[b]}}, {}, series),
                                         "leaf_median_bandwidth", matrix[a][b].get<double>(), static_cast<double>(base.size));
      f.role = report::Role::Shown;
      sheet.figures.push_back(std::move(f));
    }
  }
}

// What the printers show besides the figures (report/sheet_html.hpp): how it was judged, the
// findings, and each node's leaf (the heatmap's groups).
void pairs_report_parts(const json& doc, const std::vector<std::string>& names, report::Sheet& sheet) {
  const json& settings = doc.at("settings");
  if (settings.contains("slow_fraction") && settings.at("slow_fraction").is_number()) {
    sheet.slow_fraction = settings.at("slow_fraction").get<double>();
    std::string note = "A pair is slow below " + fixed(sheet.slow_fraction) + " x the median rail";
    if (settings.contains("slow_fraction_of_top_third") && settings.at("slow_fraction_of_top_third").is_number()) {
      note += " or below " + fixed(settings.at("slow_fraction_of_top_third").get<double>()) + " x the top-third pair";
    }
    const json& summary = doc.at("summary");
    if (summary.contains("median_gbps") && summary.at("median_gbps").is_number()) {
      note += "; median rail " + fixed(summary.at("median_gbps").get<double>()) + " GB/s";
    }
    sheet.notes.push_back(note + ".");
  }
  if (doc.contains("pattern") && doc.at("pattern").is_string()) {
    sheet.notes.push_back("Pattern " + doc.at("pattern").get<std::string>() + ".");
  }
  for (const auto& f : doc.value("findings", json::array())) {
    if (f.is_object() && f.contains("why")) sheet.findings.push_back(f.value("kind", "finding") + ": " + f.value("why", ""));
  }
  if (!doc.contains("topology") || !doc.at("topology").is_object()) return;
  for (const auto& leaf : doc.at("topology").value("leaves", json::array())) {
    const std::string leaf_name = leaf.value("name", "");
    for (const auto& n : leaf.value("nodes", json::array())) {
      if (!n.is_number_integer() || n.get<long long>() < 0) continue;  // the leaf's nodes by index
      const auto node = static_cast<std::size_t>(n.get<long long>());
      if (node < names.size()) sheet.groups.emplace_back(names[node], leaf_name);
    }
  }
}

}  // namespace

report::Sheet sheet_from_json(const json& doc) {
  report::Sheet sheet;
  sheet.workload = "pairs";
  sheet.schema = doc.at("schema").get<std::string>();
  sheet.provenance = report::provenance_from_json(doc.at("provenance"));
  // The ending is in the summary (an nvlink document's is at the top).
  const json& ending = doc.at("summary");
  sheet.complete = ending.at("complete").get<bool>();
  sheet.interrupted_by = text_or_empty(ending, "interrupted_by");
  sheet.failure = text_or_empty(ending, "failure");
  const json& wrong_total = ending.at("wrong_total");
  sheet.wrong_total = wrong_total.is_number() ? wrong_total.get<std::uint64_t>() : 0;  // null: not checked
  if (doc.contains("health") && doc.at("health").is_object()) sheet.health = doc.at("health");

  const json& settings = member(doc, "settings", "");
  const report::Series base{"pairs", text_of(settings, "type", "settings"), "none", -1, "",
                            count_of(settings, "bytes", "settings"), "sendrecv"};
  sheet.bytes = base.size;
  std::vector<std::string> names;
  const json& nodes = array_member(doc, "nodes", "");
  for (std::size_t i = 0; i < nodes.size(); ++i) names.push_back(text_of(nodes[i], "name", "nodes[" + std::to_string(i) + "]"));
  pairs_report_parts(doc, names, sheet);
  sheet.nodes = names;
  std::sort(sheet.nodes.begin(), sheet.nodes.end());
  sheet.nodes.erase(std::unique(sheet.nodes.begin(), sheet.nodes.end()), sheet.nodes.end());
  if (doc.contains("detail") && doc.at("detail") == "sparse") {
    pairs_node_figures(doc, names, base, sheet);
    pairs_leaf_figures(doc, base, sheet);
    return sheet;
  }
  const double bytes = static_cast<double>(base.size);
  const json& pairs = array_member(doc, "pairs", "");
  sheet.figures.reserve(pairs.size() * 2);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    const std::string at = "pairs[" + std::to_string(i) + "]";
    const std::string& a = pairs_figure_node(names, count_of(p, "node_a", at), at + ".node_a");
    const std::string& b = pairs_figure_node(names, count_of(p, "node_b", at), at + ".node_b");
    const json& gbps = member(p, "gbps", at);
    if (!gbps.is_number()) continue;
    const std::string& first = std::min(a, b);
    const std::string& second = std::max(a, b);
    report::Series series = base;
    series.config = first + " <-> " + second;  // either order names one pair
    // Its slowest rail's time (the exchange time of the pair's GB/s), its rails' wrong elements
    // (none: not checked, --check 0).
    std::optional<double> time_us;
    std::optional<std::uint64_t> wrong;
    const json& slowest = member(p, "slowest_rail", at);
    const json& rails = array_member(p, "rails", at);
    for (std::size_t r = 0; r < rails.size(); ++r) {
      const std::string rail = at + ".rails[" + std::to_string(r) + "]";
      if (member(rails[r], "local_rank", rail) == slowest && member(rails[r], "time_us", rail).is_number()) {
        time_us = rails[r].at("time_us").get<double>();
      }
      if (const json& w = member(rails[r], "wrong", rail); w.is_number()) wrong = wrong.value_or(0) + w.get<std::uint64_t>();
    }
    const report::Figure pair = pairs_figure({{"node_a", first}, {"node_b", second}}, {first, second}, series);
    sheet.figures.push_back(pairs_bandwidth(pair, "bandwidth", gbps.get<double>(), bytes));
    sheet.figures.back().wrong = wrong;
    if (p.contains("slow") && p.at("slow").is_boolean()) {
      sheet.figures.back().slow = p.at("slow").get<bool>();
      if (sheet.figures.back().slow.value() && p.contains("ratio_to_median") && p.at("ratio_to_median").is_number()) {
        sheet.figures.back().why = {fixed(p.at("ratio_to_median").get<double>()) + " x the median rail"};
      }
    }
    sheet.figures.back().where.ranks = static_cast<int>(rails.size() * 2);
    if (time_us) {
      report::Figure time = sheet.figures.back();
      time.metric = "time";
      time.value = *time_us;
      time.unit = "us";
      time.better = report::Better::Lower;
      time.role = report::Role::Time;
      time.bytes = 0;
      sheet.figures.push_back(std::move(time));
    }
  }
  return sheet;
}

}  // namespace commsweep::pairs
