// A self-contained HTML report: inline CSS and SVG, no script, nothing fetched. Plots: busbw
// against message size (out-of-place) per test, type and operator; EP bandwidth against tokens
// (the matrices, one size per pair, in the verdict table only). This run in blue (FAIL points red, WARN amber, NOISY purple), the baseline orange dashed, history grey.
#include <set>
#include <sstream>

#include "regress/render.hpp"
#include "core/strings.hpp"
#include "regress/svg_plot.hpp"

namespace commsweep::regress {
namespace {

constexpr const char* kRunColour = "#1f77b4";
constexpr const char* kRunCombineColour = "#2ca02c";
constexpr const char* kBaselineColour = "#ff7f0e";
constexpr const char* kBaselineCombineColour = "#8c564b";
constexpr const char* kHistoryColour = "#b0b0b0";
constexpr const char* kFailColour = "#d62728";
constexpr const char* kWarnColour = "#e6b000";
constexpr const char* kNoisyColour = "#9467bd";

// The plot a key belongs to (collectives: out-of-place only), or "" for none.
std::string plot_id(const Key& k) {
  if (k.is_ep()) return "ep " + k.config + " " + k.type;
  if (k.is_matrix()) return "";  // one size per pair: the verdict table says it all
  if (k.place != "out_of_place") return "";
  return k.test + " " + k.type + " " + k.redop + (k.root >= 0 ? " root " + std::to_string(k.root) : "");
}

std::string mark_of(Verdict v) {
  if (v == Verdict::Fail) return kFailColour;
  if (v == Verdict::Warn) return kWarnColour;
  if (v == Verdict::Noisy) return kNoisyColour;
  return "";
}

Plot plot_for(const std::string& id, const Comparison& c, const Baseline& b,
              const std::vector<HistoryRun>& history) {
  const bool ep = id.rfind("ep ", 0) == 0;
  Plot plot{id, ep ? "tokens per rank" : "message size (bytes)", ep ? "bandwidth (GB/s)" : "busbw (GB/s)", !ep, {}};
  const std::vector<std::string> places = ep ? std::vector<std::string>{"dispatch", "combine"}
                                             : std::vector<std::string>{"out_of_place"};
  bool history_named = false;
  for (const auto& run : history) {
    for (const auto& place : places) {
      PlotSeries s{"history (" + std::to_string(history.size()) + " runs)", kHistoryColour, 1, false, !history_named, {}};
      for (const auto& [k, o] : run.observed) {
        if (plot_id(k) == id && k.place == place && k.size > 0) s.points.push_back({double(k.size), median(o.bandwidth_gbps), ""});
      }
      if (!s.points.empty()) plot.series.push_back(s), history_named = true;
    }
  }
  for (const auto& place : places) {
    const bool combine = place == "combine";
    PlotSeries s{"baseline" + (ep ? " " + place : ""), combine ? kBaselineCombineColour : kBaselineColour, 2, true, true, {}};
    for (const auto& e : b.entries) {
      if (plot_id(e.key) == id && e.key.place == place && e.key.size > 0) s.points.push_back({double(e.key.size), e.bandwidth_gbps, ""});
    }
    if (!s.points.empty()) plot.series.push_back(s);
  }
  for (const auto& place : places) {
    const bool combine = place == "combine";
    PlotSeries s{"this run" + (ep ? " " + place : ""), combine ? kRunCombineColour : kRunColour, 2.5, false, true, {}};
    for (const auto& j : c.judgements) {
      if (plot_id(j.key) == id && j.key.place == place && !j.missing && j.key.size > 0) {
        s.points.push_back({double(j.key.size), j.busbw_gbps, mark_of(j.verdict)});
      }
    }
    if (!s.points.empty()) plot.series.push_back(s);
  }
  return plot;
}

const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
    "td.n{text-align:right}.FAIL{background:#f8d0d0}.WARN{background:#fff0b0}.NOISY{background:#e8dcf4}.PASS{background:#e6f4e6}"
    ".SAME{background:#ffffff}.NOT_JUDGED{background:#eeeeee;color:#666}.plots{display:flex;flex-wrap:wrap;gap:12px}";

void verdict_table(std::ostringstream& out, const Comparison& c) {
  out << "<h2>Verdicts</h2>\n<table>\n<tr><th>verdict</th><th>measurement</th><th>metric</th><th>baseline</th>"
         "<th>now</th><th>change</th><th>spread</th><th>reason</th></tr>\n";
  for (const auto& line : group_lines(c)) {
    const Judgement& j = *line.worst;
    const bool measured = j.has_baseline && !j.missing;
    out << "<tr class='" << name_of(j.verdict) << "'><td>" << name_of(j.verdict) << "</td><td>"
        << xml_escape(describe(j.key)) << "</td><td>" << name_of(j.metric) << "</td><td class='n'>"
        << (measured ? value_text(j, j.baseline_value) : "-") << "</td><td class='n'>"
        << (j.missing ? "-" : value_text(j, j.value)) << "</td><td class='n'>"
        << (measured ? signed_pct(j.change_pct) : "-") << "</td><td class='n'>"
        << (measured ? fixed(j.noise_pct, 1) + "%" : "-") << "</td><td>" << xml_escape(j.reason) << "</td></tr>\n";
  }
  out << "</table>\n";
}

// Per size and half, how the run's iterations spread (report::IterationStats, the median over
// its samples): where a row's median is fine but its tail is not, this shows it.
void spread_table(std::ostringstream& out, const Comparison& c) {
  bool any = false;
  for (const auto& j : c.judgements) any = any || j.spread.iterations > 0;
  if (!any) return;
  out << "<h2>Spread over the iterations</h2>\n<table>\n<tr><th>measurement</th><th>iterations</th><th>min (us)</th>"
         "<th>p50 (us)</th><th>p95 (us)</th><th>p99 (us)</th><th>max (us)</th><th>cv</th><th>spikes</th>"
         "<th>baseline p99 (us)</th><th>p99 change</th></tr>\n";
  for (const auto& j : c.judgements) {
    const auto& s = j.spread;
    if (s.iterations == 0) continue;
    out << "<tr class='" << name_of(j.verdict) << "'><td>" << xml_escape(describe(j.key)) << "</td><td class='n'>"
        << s.iterations << "</td><td class='n'>" << fixed(s.min_us, 2) << "</td><td class='n'>" << fixed(s.p50_us, 2)
        << "</td><td class='n'>" << fixed(s.p95_us, 2) << "</td><td class='n'>" << fixed(s.p99_us, 2)
        << "</td><td class='n'>" << fixed(s.max_us, 2) << "</td><td class='n'>" << fixed(s.cv_pct, 1)
        << "%</td><td class='n'>" << s.spikes << "</td><td class='n'>"
        << (j.tail_judged ? fixed(j.tail_baseline_us, 2) : "-") << "</td><td class='n'>"
        << (j.tail_judged ? signed_pct(j.tail_change_pct) : "-") << "</td></tr>\n";
  }
  out << "</table>\n";
}

void summary(std::ostringstream& out, const Comparison& c, const Baseline& b) {
  out << "<h1>commsweep compare: " << (c.exit_code == exit_code::kOk ? "PASS" : "FAIL") << " ("
      << xml_escape(c.shape) << ", " << xml_escape(c.mode) << ")</h1>\n<ul>\n"
      << "<li>results: <code>" << xml_escape(c.results_file) << "</code>, started " << xml_escape(c.started_at) << "</li>\n"
      << "<li>baseline: <code>" << xml_escape(c.baseline_file) << "</code>, made " << xml_escape(b.provenance.created_at)
      << " from " << count_of(b.provenance.sources.size(), "run") << (b.provenance.note.empty() ? "" : ": " + xml_escape(b.provenance.note)) << "</li>\n";
  if (const std::string line = setup_differs_text(c); !line.empty()) out << "<li class='WARN'>" << xml_escape(line) << "</li>\n";
  if (const std::string line = setup_not_checked_text(c); !line.empty()) out << "<li>" << xml_escape(line) << "</li>\n";
  out << "<li>verdicts: " << counts_text(c) << "; wrong elements: " << c.wrong_total << "; exit code " << c.exit_code
      << " (" << exit_meaning(c.exit_code) << ")</li>\n";
  if (!c.complete) {
    out << "<li class='FAIL'>the run is incomplete (" << xml_escape(c.ended_by) << "): its missing sizes fail</li>\n";
  }
  if (c.stragglers.empty()) out << "<li>stragglers: none</li>\n";
  for (const auto& s : c.stragglers) {
    out << "<li class='WARN'>straggler: rank " << s.rank << " on host <b>" << xml_escape(s.host) << "</b> (GPU "
        << xml_escape(s.gpu) << "), an outlier in " << s.outlier_samples << " of " << s.samples << " samples, worst "
        << fixed(s.worst_slower_pct, 1) << "% slower than the median rank</li>\n";
  }
  out << "</ul>\n";
}

}  // namespace

std::string render_html(const Comparison& c, const Baseline& b, const std::vector<HistoryRun>& history) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>commsweep compare "
      << xml_escape(c.shape) << "</title><style>" << kStyle << "</style></head><body>\n";
  summary(out, c, b);
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const auto& j : c.judgements) {
    const std::string id = plot_id(j.key);
    if (!id.empty() && seen.insert(id).second) ids.push_back(id);
  }
  if (!ids.empty()) {  // none for a run of nvlink or pairs files alone
    out << "<h2>Plots</h2>\n<div class='plots'>\n";
    for (const auto& id : ids) out << render_svg(plot_for(id, c, b, history));
    out << "</div>\n";
  }
  verdict_table(out, c);
  spread_table(out, c);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace commsweep::regress
