// The matching of a run to its expected figures, the value at a size, and the judge
// (regress/expected.hpp); docs/expected.md says why each choice is what it is.
#include "regress/expected.hpp"

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
  if (f.nodes <= 1) return e.fabric == "nvlink3" || e.fabric == "nvlink4";
  return (e.fabric == "ib" && f.link == "IB") || (e.fabric == "roce" && f.link == "RoCE");
}

bool expected_hardware_matches(const ExpectedEntry& e, const RunFacts& f, const std::string& gpu) {
  if (e.backend != f.backend) return false;
  if (e.gpu != "any" && e.gpu != gpu) return false;
  if (f.nodes < 1 || f.ranks % f.nodes != 0 || e.gpus != f.ranks / f.nodes) return false;
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

// Log-log between two points: a power law, exact where the time is constant (busbw grows with
// the size) and below the true curve at the knee (the expectation errs low: docs/expected.md).
double expected_log_log(const std::pair<std::uint64_t, double>& a, const std::pair<std::uint64_t, double>& b,
               std::uint64_t size) {
  const double t = (std::log(static_cast<double>(size)) - std::log(static_cast<double>(a.first))) /
                   (std::log(static_cast<double>(b.first)) - std::log(static_cast<double>(a.first)));
  return std::exp(std::log(a.second) + t * (std::log(b.second) - std::log(a.second)));
}

// The curve's own value at SIZE > 0, and below its first size the value falling with the size.
double expected_curve_at(const SizeCurve& points, std::uint64_t size) {
  if (size >= points.back().first) return points.back().second;
  if (size <= points.front().first)
    return points.front().second * static_cast<double>(size) / static_cast<double>(points.front().first);
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

const ExpectedEntry* Expectations::for_workload(const std::string& workload) const {
  for (const ExpectedEntry* e : entries)
    if (e->workload == workload) return e;
  return nullptr;
}

Expectations match(const ExpectedTable& table, const RunFacts& facts) {
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
  bool other_nvls = false;
  for (const ExpectedEntry& e : table.entries()) {
    if (!expected_hardware_matches(e, facts, gpu)) continue;
    if (!expected_nvls_matches(e, facts)) {
      other_nvls = true;
      continue;
    }
    // The last entry of a workload wins: a user's file comes after the built-in ones.
    bool replaced = false;
    for (auto& known : out.entries)
      if (known->workload == e.workload) {
        known = &e;
        replaced = true;
      }
    if (!replaced) out.entries.push_back(&e);
  }
  if (out.entries.empty()) {
    // The mpi backend measures the host's MPI, which no shipped figure describes: nothing said.
    if (facts.backend == "mpi") return out;
    out.note = "expected: no expectation for " + where +
               (other_nvls ? " (its entries are for the other NVLS setting: NCCL_NVLS_ENABLE=0 is commsweep's usual)"
                           : "") +
               "; commsweep expected lists the entries, --expected FILE adds one (docs/expected.md)";
    return out;
  }
  std::string list;
  for (const ExpectedEntry* e : out.entries) list += (list.empty() ? "" : ", ") + e->workload + " (" + e->id + ")";
  out.note = "expected busbw for " + where + ": " + list + " [" + table.origin() + "; commsweep expected]";
  return out;
}

std::optional<double> expected_at(const ExpectedTable& table, const ExpectedEntry& entry, std::uint64_t size) {
  if (size == 0 || size < entry.from || entry.points.empty()) return std::nullopt;
  const auto& first = entry.points.front();
  if (size < first.first && !entry.shape.empty()) {
    // Below the published sizes: the shape's curve, scaled to meet the entry at its first size.
    if (const ExpectedEntry* shape = table.find(entry.shape); shape && !shape->points.empty())
      return expected_curve_at(shape->points, size) * first.second / expected_curve_at(shape->points, first.first);
  }
  return expected_curve_at(entry.points, size);
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
  std::optional<report::ExpectedFinding> worst;
  for (const auto& [half, t] : {std::pair<const char*, const report::Timing*>{"out_of_place", &row.out_of_place},
                                {"in_place", &row.in_place}}) {
    if (!t->expected_gbps || *t->expected_gbps <= 0 || t->time_us <= 0) continue;
    // The table's busbw is over the mean iteration: one stalled iteration of twenty (a spike,
    // iterations.md's finding) can put a small size at a tenth of its figure on a healthy node.
    // The judge asks the median iteration too where it was kept, and takes the better: a slow
    // link or GPU is slow in every iteration (--fault slow doubles each), a spike in one.
    double busbw = t->busbw_gbps;
    bool median = false;
    if (t->per_iter && t->per_iter->p50_us > 0 && t->per_iter->p50_us < t->time_us) {
      busbw = t->busbw_gbps * t->time_us / t->per_iter->p50_us;
      median = true;
    }
    const double of = busbw / *t->expected_gbps;
    const ExpectedVerdict v = judge(*entry, row.size_bytes, of);
    if (v == ExpectedVerdict::Pass || (worst && of >= worst->of_expected)) continue;
    report::ExpectedFinding f;
    f.severity = v == ExpectedVerdict::Fail ? "FAIL" : "WARN";
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
    worst = f;
  }
  if (!worst) return std::nullopt;
  report::ExpectedFinding& f = *worst;
  f.text = f.severity + " expected: " + f.test + " " + binary_size_text(f.size_bytes) + " busbw " +
           expected_decimals(f.busbw_gbps) + " GB/s (" + (f.half == "in_place" ? "in place" : "out of place") +
           f.text + ") is " +
           expected_decimals(f.of_expected) + " of the expected " + expected_decimals(f.expected_gbps) + " (" + f.entry + ", " +
           f.severity + " below " + expected_decimals(f.floor) + "); slowest rank " + std::to_string(f.rank) + " on " +
           f.host;
  return worst;
}

}  // namespace commsweep::regress
