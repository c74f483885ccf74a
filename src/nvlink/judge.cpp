#include "nvlink/judge.hpp"

#include <algorithm>
#include <map>

#include "core/strings.hpp"
#include "judge/reference.hpp"
#include "nvlink/expectation.hpp"
#include "regress/observation.hpp"
#include "report/gpu_findings.hpp"

namespace commsweep::nvlink {
namespace {

std::optional<double> median_or_none(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return regress::median(std::move(values));
}

// "ce_write 95.31 GB/s = 0.26 x the node median 371.20 GB/s"
std::string below(const std::string& what, double value, double ratio, const std::string& reference, double ref) {
  return what + " " + fixed(value) + " GB/s = " + fixed(ratio) + " x " + reference + " " + fixed(ref) + " GB/s";
}

void judge_metric(const PairResult& p, const Gpu& src, const Gpu& dst, Metric m, const NodeAnalysis& node,
                  const RunConfig& s, PairVerdict& v) {
  const std::size_t i = static_cast<std::size_t>(m);
  if (!p.gbps[i]) return;
  const double value = *p.gbps[i];
  if (node.median_gbps[i] && *node.median_gbps[i] > 0) {
    const judge::Against to_median = judge::below(value, *node.median_gbps[i], s.slow_fraction);
    v.ratio_to_median[i] = to_median.ratio;
    if (to_median.slow) {
      v.slow = true;
      v.why.push_back(below(metric_name(m), value, to_median.ratio, "the node median", *node.median_gbps[i]));
    }
  }
  const auto expected = expected_gbps(src, dst, m);
  if (!by_copy_engine(m) || !expected || *expected <= 0) return;
  const judge::Against to_expected = judge::below(value, *expected, s.expected_floor);
  if (m == Metric::CeWrite) v.ratio_to_expected = to_expected.ratio;
  if (to_expected.slow) {
    v.slow = true;
    v.why.push_back(below(metric_name(m), value, to_expected.ratio, "the topology's", *expected));
  }
}

void judge_latency(const PairResult& p, const NodeAnalysis& node, const RunConfig& s, PairVerdict& v) {
  if (!p.latency_us || !node.median_latency_us) return;
  const judge::Against to_median = judge::above(*p.latency_us, *node.median_latency_us, s.latency_over);
  if (to_median.slow) {
    v.slow = true;
    v.why.push_back("latency " + fixed(*p.latency_us) + " us = " + fixed(to_median.ratio) + " x the node median " +
                    fixed(*node.median_latency_us) + " us");
  }
}

void medians(const NodeMatrix& node, NodeAnalysis& a) {
  for (Metric m : kAllMetrics) {
    std::vector<double> values;
    for (const auto& p : node.pairs)
      if (p.gbps[static_cast<std::size_t>(m)]) values.push_back(*p.gbps[static_cast<std::size_t>(m)]);
    a.median_gbps[static_cast<std::size_t>(m)] = median_or_none(values);
  }
  std::vector<double> latency, to_one, from_one;
  for (const auto& p : node.pairs)
    if (p.latency_us) latency.push_back(*p.latency_us);
  for (const auto& t : node.targets) {
    if (t.all_to_one_gbps) to_one.push_back(*t.all_to_one_gbps);
    if (t.one_to_all_gbps) from_one.push_back(*t.one_to_all_gbps);
  }
  a.median_latency_us = median_or_none(latency);
  a.median_all_to_one_gbps = median_or_none(to_one);
  a.median_one_to_all_gbps = median_or_none(from_one);
  // The raw rate most pairs are held to (for the headers).
  std::map<double, int> count;
  for (const auto& p : node.pairs) {
    if (const auto e = expected_gbps(node.gpus.at(p.src), node.gpus.at(p.dst))) ++count[*e];
  }
  int best = 0;
  for (const auto& [rate, n] : count)
    if (n > best) best = n, a.expected_gbps = rate;
}

void judge_target(const char* what, const std::optional<double>& value, const std::optional<double>& median,
                  const std::optional<double>& expected, const RunConfig& s, TargetVerdict& v) {
  if (!value) return;
  if (median) {
    if (const judge::Against a = judge::below(*value, *median, s.slow_fraction); a.slow) {
      v.slow = true;
      v.why.push_back(below(what, *value, a.ratio, "the node median", *median));
    }
  }
  if (expected) {
    if (const judge::Against a = judge::below(*value, *expected, s.expected_floor); a.slow) {
      v.slow = true;
      v.why.push_back(below(what, *value, a.ratio, "the topology's", *expected));
    }
  }
}

void judge_links(const NodeMatrix& node, NodeAnalysis& a) {
  int most = 0;
  for (const auto& g : node.gpus) most = std::max(most, g.nvlinks_active);
  for (const auto& g : node.gpus) {
    if (!g.nvml_note.empty()) continue;
    // Against its model's own links first: a whole node trained down has no better GPU to show it.
    if (const health::NvLinkMode mode = mode_of(g); mode.reduced) {
      a.gpu_findings.push_back(gpu_label(g) + ": NVLink reduced: " + mode.why);
      continue;
    }
    if (g.nvlinks_active < most) {
      a.gpu_findings.push_back(gpu_label(g) + ": " + count_of(static_cast<std::size_t>(g.nvlinks_active), "active NVLink") +
                               ", " + std::to_string(most) + " on another GPU of the node (a link down or trained down)");
    }
  }
}

// A pair's test as the one result model names it (nvlink/figures.cpp reads a file's so): its
// size is the copy's bytes, the latency's the 4-byte flag's.
report::Figure pair_figure(const NodeMatrix& node, const PairResult& p, const std::string& test, double value,
                           bool latency, std::uint64_t bytes) {
  report::Figure f;
  f.workload = "nvlink";
  f.parts = {{"host", node.host}, {"src", std::to_string(p.src)}, {"dst", std::to_string(p.dst)}, {"test", test}};
  f.metric = latency ? "latency" : "bandwidth";
  f.unit = latency ? "us" : "GB/s";
  f.better = latency ? report::Better::Lower : report::Better::Higher;
  f.value = value;
  f.series.size = latency ? 4 : bytes;
  return f;
}

// Each test of the pair with an expected figure: kept on the verdict, and a finding below a floor.
void judge_expected(const NodeMatrix& node, const PairResult& p, const RunConfig& s, const regress::Expectations& expected,
                    PairVerdict& v, NodeAnalysis& a) {
  std::vector<std::pair<report::Figure, std::string>> figures;  // (figure, its key in the pair's JSON)
  for (Metric m : kAllMetrics)
    if (const auto& g = p.gbps[static_cast<std::size_t>(m)])
      figures.emplace_back(pair_figure(node, p, metric_name(m), *g, false, s.bytes), metric_name(m));
  if (p.latency_us) figures.emplace_back(pair_figure(node, p, "latency", *p.latency_us, true, s.bytes), "latency_us");
  for (const auto& [f, key] : figures) {
    const auto e = regress::expectation_of(expected, f);
    if (!e) continue;
    v.expected.push_back({key, e->expected, e->of_expected, e->entry->id});
    if (e->verdict == regress::ExpectedVerdict::Pass) continue;
    const std::string what = "nvlink " + (f.metric == "latency" ? std::string("latency") : key) + " " +
                             gpu_label(node.gpus.at(p.src)) + " -> " + gpu_label(node.gpus.at(p.dst));
    a.expected_findings.push_back(regress::expected_finding_line(*e, what, f.value, f.unit, "on " + node.host));
    a.expected_fails += e->verdict == regress::ExpectedVerdict::Fail;
  }
}

// A slow pair laid at its GPUs' throttling during its tests, where there was some.
void join_gpu_state(const NodeMatrix& node, const PairResult& p, NodeAnalysis& a) {
  const auto name = [&](const report::GpuWindow& w) {
    for (const Gpu& g : node.gpus)
      if (g.rank == w.rank) return gpu_label(g) + " on " + node.host;
    return "rank " + std::to_string(w.rank) + " on " + node.host;
  };
  const std::string during = "the GPU " + std::to_string(p.src) + " -> GPU " + std::to_string(p.dst) + " pair's tests";
  for (auto& f : report::throttle_findings(p.gpu_state, name, during)) a.gpu_state_findings.push_back(std::move(f));
}

}  // namespace

std::string gpu_label(const Gpu& g) {
  return "GPU " + std::to_string(g.index) + " (rank " + std::to_string(g.rank) + ", " + g.pci_bus_id + ")";
}

NodeAnalysis analyse_node(const NodeMatrix& node, const RunConfig& s, const regress::Expectations* expected) {
  NodeAnalysis a;
  medians(node, a);
  for (const auto& p : node.pairs) {
    PairVerdict v;
    for (Metric m : kAllMetrics) judge_metric(p, node.gpus.at(p.src), node.gpus.at(p.dst), m, a, s, v);
    judge_latency(p, a, s, v);
    const std::size_t below_before = a.expected_findings.size();
    if (expected) judge_expected(node, p, s, *expected, v, a);
    if (v.slow || a.expected_findings.size() > below_before) join_gpu_state(node, p, a);
    a.wrong += p.wrong;
    a.slow_pairs += v.slow;
    a.pairs.push_back(std::move(v));
  }
  for (const auto& t : node.targets) {
    TargetVerdict v;
    const auto expected = expected_gbps(node.gpus.at(t.gpu));
    judge_target("all-to-one into it", t.all_to_one_gbps, a.median_all_to_one_gbps, expected, s, v);
    judge_target("one-to-all out of it", t.one_to_all_gbps, a.median_one_to_all_gbps, expected, s, v);
    a.wrong += t.wrong;
    a.slow_targets += v.slow;
    a.targets.push_back(std::move(v));
  }
  judge_links(node, a);
  return a;
}

Analysis analyse(const NvlinkRun& run, const regress::Expectations* expected) {
  Analysis out;
  for (const auto& node : run.nodes) {
    NodeAnalysis a = analyse_node(node, run.settings, expected);
    out.expected_fails += a.expected_fails;
    out.expected_warns += static_cast<int>(a.expected_findings.size()) - a.expected_fails;
    out.wrong_total += a.wrong;
    out.slow_pairs += a.slow_pairs;
    out.slow_targets += a.slow_targets;
    out.gpu_findings += static_cast<int>(a.gpu_findings.size());
    out.pairs += static_cast<int>(node.pairs.size());
    out.nodes.push_back(std::move(a));
  }
  return out;
}

judge::Outcomes outcomes_of(const NvlinkRun& run, const Analysis& a) {
  judge::Outcomes o = judge::run_ending(a.wrong_total, run.complete, !run.health_fail.empty());
  // A slow link is the node's fabric too slow, as a slow pair of `commsweep pairs` is.
  o.slow = a.slow_pairs > 0 || a.slow_targets > 0 || a.gpu_findings > 0 || a.expected_fails > 0;
  return o;
}

}  // namespace commsweep::nvlink
