// The matching of a run to its expected figures, the value at a size, and the judge
// (regress/expected.hpp); docs/expected.md says why each choice is what it is.
#include "regress/expected.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/sizes.hpp"
#include "core/strings.hpp"

namespace commsweep::regress {
namespace {

// "NVIDIA H200 x 2 on NVLink", "NVIDIA H100 80GB HBM3 x 8 per node x 4 nodes on IB".
std::string expected_hardware(const std::string& gpu, const RunFacts& f) {
  if (gpu.empty()) return std::to_string(f.ranks) + " ranks without a GPU on " + count_of(static_cast<std::size_t>(f.nodes), "node");
  const std::string& model = gpu;
  if (f.nodes <= 1) return model + " x " + std::to_string(f.ranks) + " on NVLink";
  const int per_node = f.ranks / f.nodes;
  return model + " x " + std::to_string(per_node) + " per node x " + std::to_string(f.nodes) + " nodes on " +
         (f.link.empty() ? "an unknown network" : f.link);
}

bool expected_fabric_matches(const ExpectedEntry& e, const RunFacts& f) {
  if (e.fabric == "any") return true;
  // One node: the GPU model names its NVLink (an H200 is NVLink 4), so the entry's model decides.
  const bool nvlink = e.fabric == "nvlink3" || e.fabric == "nvlink4";
  if (f.nodes <= 1) return nvlink;
  // An NVLink entry of "1+" nodes holds inside each node of any number (nvlink's pairs).
  if (nvlink) return e.more_nodes;
  return (e.fabric == "ib" && f.link == "IB") || (e.fabric == "roce" && f.link == "RoCE");
}

bool expected_hardware_matches(const ExpectedEntry& e, const RunFacts& f, const std::string& gpu) {
  if (e.backend != f.backend) return false;
  if (e.gpu != "any" && e.gpu != gpu) return false;
  if (f.nodes < 1 || f.ranks % f.nodes != 0 || (e.gpus != 0 && e.gpus != f.ranks / f.nodes)) return false;
  if (e.more_nodes ? f.nodes < e.nodes : f.nodes != e.nodes) return false;
  return expected_fabric_matches(e, f);
}

bool expected_nvls_matches(const ExpectedEntry& e, const RunFacts& f) {
  return e.nvls == "any" || (e.nvls == "off") == f.nvls_off;
}

std::string expected_decimals(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", x);
  return buffer;
}

// A figure (busbw, a bandwidth, a time): two decimals, or three significant digits below 1,
// where two decimals would say "busbw 0.00 GB/s is 0.17 of the expected 0.00" at 8 B.
std::string expected_figure(double x) {
  if (x == 0 || std::fabs(x) >= 1) return expected_decimals(x);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

// Log-log between two points: a power law, exact where the time is constant (busbw grows with
// the size) and below the true curve at the knee (the expectation errs low: docs/expected.md).
double expected_log_log(const std::pair<std::uint64_t, double>& a, const std::pair<std::uint64_t, double>& b,
               std::uint64_t size) {
  const double t = (std::log(static_cast<double>(size)) - std::log(static_cast<double>(a.first))) /
                   (std::log(static_cast<double>(b.first)) - std::log(static_cast<double>(a.first)));
  return std::exp(std::log(a.second) + t * (std::log(b.second) - std::log(a.second)));
}

// The curve's own value at SIZE > 0. A rate: below its first size falling with the size (a
// constant time), above its last flat. A TIME: below its first size flat (a time no longer than
// at that size: errs lenient), above its last growing with the size (the rate stays).
double expected_curve_at(const SizeCurve& points, std::uint64_t size, bool time = false) {
  if (size >= points.back().first)
    return time ? points.back().second * static_cast<double>(size) / static_cast<double>(points.back().first)
                : points.back().second;
  if (size <= points.front().first)
    return time ? points.front().second
                : points.front().second * static_cast<double>(size) / static_cast<double>(points.front().first);
  for (std::size_t i = 1; i < points.size(); ++i)
    if (size <= points[i].first) return expected_log_log(points[i - 1], points[i], size);
  return points.back().second;
}

}  // namespace

RunFacts facts_of(const report::Provenance& provenance, const std::optional<report::TransportReport>& transport) {
  RunFacts f;
  f.backend = provenance.backend;
  // The mpi backend uses no GPU (its "device" is host memory): a model would match nothing.
  if (provenance.backend != "mpi")
    for (const auto& g : provenance.gpus) f.gpus.push_back(g.name);
  f.ranks = provenance.ranks;
  f.nodes = static_cast<int>(std::set<std::string>(provenance.hosts.begin(), provenance.hosts.end()).size());
  if (f.nodes == 0) f.nodes = 1;
  if (transport) {
    std::set<std::string> links;
    for (const auto& r : transport->ranks)
      if (!r.link.empty()) links.insert(r.link);
    if (links.size() == 1) f.link = *links.begin();
  }
  const auto nvls = provenance.environment.find("NCCL_NVLS_ENABLE");
  f.nvls_off = nvls != provenance.environment.end() && nvls->second == "0";
  return f;
}

bool expected_time_metric(const std::string& metric) {
  return metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0;
}

const ExpectedEntry* Expectations::for_workload(const std::string& workload) const {
  for (const ExpectedEntry* e : entries)
    if (e->workload == workload && e->metric == kExpectedMetric && e->match_case.empty()) return e;
  return nullptr;
}

std::string figure_metric(const report::Figure& figure) {
  return figure.metric + (figure.unit == "us" ? "_us" : figure.unit == "GB/s" ? "_gbps" : "");
}

namespace {

bool expected_case_holds(const ExpectedEntry& e, const report::Figure& figure) {
  for (const auto& [name, value] : e.match_case) {
    bool found = false;
    for (const auto& part : figure.parts)
      if (part.name == name) found = part.value == value;
    if (!found) return false;
  }
  return true;
}

}  // namespace

const ExpectedEntry* Expectations::for_figure(const report::Figure& figure) const {
  // The last that holds: a user's file comes after the built-in ones, whatever its case names.
  const std::string metric = figure_metric(figure);
  for (auto e = entries.rbegin(); e != entries.rend(); ++e)
    if ((*e)->workload == figure.workload && (*e)->metric == metric && expected_case_holds(**e, figure)) return *e;
  return nullptr;
}

std::optional<FigureExpectation> expectation_of(const Expectations& expectations, const report::Figure& figure) {
  const ExpectedEntry* entry = expectations.for_figure(figure);
  if (!entry || !expectations.table || figure.value <= 0) return std::nullopt;
  const auto value = expected_at(*expectations.table, *entry, figure.series.size);
  if (!value || *value <= 0) return std::nullopt;
  FigureExpectation out;
  out.entry = entry;
  out.expected = *value;
  out.of_expected = figure.better == report::Better::Lower ? *value / figure.value : figure.value / *value;
  out.verdict = judge(*entry, figure.series.size, out.of_expected);
  if (out.verdict != ExpectedVerdict::Pass)
    out.floor = ratio_at(out.verdict == ExpectedVerdict::Fail ? entry->fail_below : entry->warn_below, figure.series.size);
  return out;
}

Expectations match(const ExpectedTable& table, const RunFacts& facts, const std::vector<std::string>& scope) {
  Expectations out;
  out.table = &table;
  const std::set<std::string> models(facts.gpus.begin(), facts.gpus.end());
  const std::string gpu = models.size() == 1 ? *models.begin() : "";
  const std::string where = expected_hardware(gpu, facts) + (facts.backend == "mpi" ? ", mpi backend"
                                                             : facts.nvls_off        ? ", NVLS off"
                                                                                     : ", NVLS on (NCCL's default)");
  if (models.size() > 1) {
    out.note = "expected: none for a job of several GPU models (" + std::to_string(models.size()) + ")";
    return out;
  }
  const auto in_scope = [&](const std::string& workload) {
    return scope.empty() || std::find(scope.begin(), scope.end(), workload) != scope.end();
  };
  bool other_nvls = false;
  for (const ExpectedEntry& e : table.entries()) {
    if (!in_scope(e.workload) || !expected_hardware_matches(e, facts, gpu)) continue;
    if (!expected_nvls_matches(e, facts)) {
      other_nvls = true;
      continue;
    }
    // The last entry of a workload, metric and case wins: a user's file comes after the built-in ones.
    bool replaced = false;
    for (auto& known : out.entries)
      if (known->workload == e.workload && known->metric == e.metric && known->match_case == e.match_case) {
        known = &e;
        replaced = true;
      }
    if (!replaced) out.entries.push_back(&e);
  }
  if (out.entries.empty()) {
    // The mpi backend measures the host's MPI, which no shipped figure describes: nothing said.
    if (facts.backend == "mpi") return out;
    std::string measured;
    for (const std::string& w : scope) measured += (measured.empty() ? "" : ", ") + w;
    out.note = "expected: no expectation for " + where + (measured.empty() ? "" : " (" + measured + ")") +
               (other_nvls ? " (its entries are for the other NVLS setting: NCCL_NVLS_ENABLE=0 is commsweep's usual)"
                           : "") +
               "; commsweep expected lists the entries, --expected FILE adds one (docs/expected.md)";
    return out;
  }
  // Each workload once: its entry's id, or how many it has (ep: one per implementation, dtype, phase).
  std::vector<std::string> workloads;
  bool busbw_only = true;
  for (const ExpectedEntry* e : out.entries) {
    if (std::find(workloads.begin(), workloads.end(), e->workload) == workloads.end()) workloads.push_back(e->workload);
    busbw_only = busbw_only && e->metric == kExpectedMetric;
  }
  std::string list;
  for (const std::string& w : workloads) {
    std::vector<const ExpectedEntry*> of;
    for (const ExpectedEntry* e : out.entries)
      if (e->workload == w) of.push_back(e);
    list += (list.empty() ? "" : ", ") + w + " (" + (of.size() == 1 ? of[0]->id : std::to_string(of.size()) + " entries") + ")";
  }
  std::string none;
  for (const std::string& w : scope)
    if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) none += (none.empty() ? "" : ", ") + w;
  out.note = std::string(busbw_only ? "expected busbw for " : "expected figures for ") + where + ": " + list + " [" +
             table.origin() + "; commsweep expected]" + (none.empty() ? "" : "; no expectation for " + none);
  return out;
}

std::optional<double> expected_at(const ExpectedTable& table, const ExpectedEntry& entry, std::uint64_t size) {
  if (size == 0 || size < entry.from || entry.points.empty()) return std::nullopt;
  const bool time = expected_time_metric(entry.metric);
  const auto& first = entry.points.front();
  if (size < first.first && !entry.shape.empty()) {
    // Below the published sizes: the shape's curve, scaled to meet the entry at its first size.
    if (const ExpectedEntry* shape = table.find(entry.shape); shape && !shape->points.empty())
      return expected_curve_at(shape->points, size, time) * first.second / expected_curve_at(shape->points, first.first, time);
  }
  return expected_curve_at(entry.points, size, time);
}

double ratio_at(const SizeCurve& curve, std::uint64_t size) {
  if (curve.empty()) return 0;
  double r = curve.front().second;
  for (const auto& [from, ratio] : curve)
    if (from <= size) r = ratio;
  return r;
}

ExpectedVerdict judge(const ExpectedEntry& entry, std::uint64_t size, double of_expected) {
  if (of_expected < ratio_at(entry.fail_below, size)) return ExpectedVerdict::Fail;
  if (of_expected < ratio_at(entry.warn_below, size)) return ExpectedVerdict::Warn;
  return ExpectedVerdict::Pass;
}

std::string expected_finding_line(const FigureExpectation& e, const std::string& what, double value,
                                  const std::string& unit, const std::string& where) {
  const std::string severity = judge::name_of(e.verdict);
  // A time reads as how many times the expected one, then the share of the speed the floor judges.
  const std::string against =
      expected_time_metric(e.entry->metric)
          ? expected_decimals(value / e.expected) + " x the expected " + expected_figure(e.expected) + " " + unit +
                ", " + expected_decimals(e.of_expected) + " of its speed"
          : expected_decimals(e.of_expected) + " of the expected " + expected_figure(e.expected) + " " + unit;
  return severity + " expected: " + what + " " + expected_figure(value) + " " + unit + " is " + against + " (" +
         e.entry->id + ", " + severity + " below " + expected_decimals(e.floor) + ")" + (where.empty() ? "" : "; " + where);
}

void annotate(const Expectations& expectations, report::ResultRow& row) {
  const ExpectedEntry* entry = expectations.for_workload(row.test);
  if (!entry || !expectations.table) return;
  const auto value = expected_at(*expectations.table, *entry, row.size_bytes);
  row.out_of_place.expected_gbps = value;
  row.in_place.expected_gbps = value;
}

std::optional<report::ExpectedFinding> finding_of(const Expectations& expectations, const report::ResultRow& row,
                                                  const std::vector<std::string>& hosts) {
  const ExpectedEntry* entry = expectations.for_workload(row.test);
  if (!entry) return std::nullopt;
  std::optional<report::ExpectedFinding> better;  // the better half's, where both are below
  for (const auto& [half, t] : {std::pair<const char*, const report::Timing*>{"out_of_place", &row.out_of_place},
                                {"in_place", &row.in_place}}) {
    if (!t->expected_gbps || *t->expected_gbps <= 0 || t->time_us <= 0) continue;
    // The table's busbw is over the mean iteration: one stalled iteration of twenty (a spike,
    // iterations.md's finding) can put a small size at a tenth of its figure on a healthy node.
    // The judge asks the median iteration too where it was kept, and takes the better: a slow
    // link or GPU is slow in every iteration (--fault slow doubles each), a spike in one.
    // Likewise of the two halves, two measurements of the size: a slow link or GPU is slow in
    // both, and a row is a finding only where both are below the floor (the better one named).
    // On 2 x H200 (2026-11-29, 50 healthy runs, 18,814 rows, docs/expected.md) 22 rows had one
    // half below its floor, at about half speed with the other at full, and 2 rows had both.
    double busbw = t->busbw_gbps;
    bool median = false;
    if (t->per_iter && t->per_iter->p50_us > 0 && t->per_iter->p50_us < t->time_us) {
      busbw = t->busbw_gbps * t->time_us / t->per_iter->p50_us;
      median = true;
    }
    const double of = busbw / *t->expected_gbps;
    const ExpectedVerdict v = judge(*entry, row.size_bytes, of);
    if (v == ExpectedVerdict::Pass) return std::nullopt;
    if (better && of <= better->of_expected) continue;
    report::ExpectedFinding f;
    f.severity = judge::name_of(v);
    f.test = row.test;
    f.size_bytes = row.size_bytes;
    f.half = half;
    f.busbw_gbps = busbw;
    f.text = median ? ", median iteration" : "";  // completed below
    f.expected_gbps = *t->expected_gbps;
    f.of_expected = of;
    f.floor = ratio_at(v == ExpectedVerdict::Fail ? entry->fail_below : entry->warn_below, row.size_bytes);
    f.rank = t->slowest_rank;
    f.host = f.rank >= 0 && f.rank < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(f.rank)] : "?";
    f.entry = entry->id;
    better = f;
  }
  if (!better) return std::nullopt;
  report::ExpectedFinding& f = *better;
  f.text = f.severity + " expected: " + f.test + " " + binary_size_text(f.size_bytes) + " busbw " +
           expected_figure(f.busbw_gbps) + " GB/s (" + (f.half == "in_place" ? "in place" : "out of place") +
           ", the better half" + f.text + ") is " +
           expected_decimals(f.of_expected) + " of the expected " + expected_figure(f.expected_gbps) + " (" + f.entry + ", " +
           f.severity + " below " + expected_decimals(f.floor) + "); slowest rank " + std::to_string(f.rank) + " on " +
           f.host;
  return better;
}

}  // namespace commsweep::regress
