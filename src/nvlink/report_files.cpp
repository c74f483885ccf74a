#include "nvlink/report_files.hpp"

#include <sstream>

#include "core/strings.hpp"
#include "nvlink/expectation.hpp"
#include "nvlink/render.hpp"
#include "report/heatmap_svg.hpp"
#include "report/prometheus.hpp"

namespace commsweep::nvlink {
namespace {

using report::xml_escape;

void node_heatmap(std::ostringstream& out, const NodeMatrix& node, const NodeAnalysis& a, Metric m, double slow_fraction) {
  const std::size_t n = node.gpus.size();
  const std::size_t k = static_cast<std::size_t>(m);
  report::Heatmap map;
  for (const auto& g : node.gpus) map.labels.push_back("GPU " + std::to_string(g.index) + " " + g.pci_bus_id);
  map.cells.assign(n, std::vector<double>(n, -1));
  for (const auto& p : node.pairs)
    if (p.gbps[k]) map.cells[p.src][p.dst] = *p.gbps[k];
  map.median = a.median_gbps[k].value_or(0);
  map.scale = {map.median, slow_fraction};
  map.between = " -> ";
  out << "<h3>" << metric_name(m) << " (rows src, columns dst), median " << fixed(map.median) << " GB/s</h3>\n";
  report::write_heatmap_svg(out, map);
}

void node_findings(std::ostringstream& out, const NodeMatrix& node, const NodeAnalysis& a) {
  out << "<ul>\n";
  for (const auto& f : a.gpu_findings) out << "<li><b>GPU</b>: " << xml_escape(f) << "</li>\n";
  for (std::size_t i = 0; i < node.pairs.size(); ++i) {
    if (!a.pairs[i].slow) continue;
    const auto& p = node.pairs[i];
    out << "<li><b>slow pair</b> " << xml_escape(gpu_label(node.gpus[p.src])) << " &rarr; "
        << xml_escape(gpu_label(node.gpus[p.dst])) << ":";
    for (const auto& w : a.pairs[i].why) out << " " << xml_escape(w) << ";";
    out << " NVLink counters: " << xml_escape(counters_rise(node.gpus[p.src])) << "; "
        << xml_escape(counters_rise(node.gpus[p.dst])) << "</li>\n";
  }
  for (std::size_t i = 0; i < node.targets.size(); ++i) {
    if (!a.targets[i].slow) continue;
    out << "<li><b>slow GPU</b> " << xml_escape(gpu_label(node.gpus[node.targets[i].gpu])) << ":";
    for (const auto& w : a.targets[i].why) out << " " << xml_escape(w) << ";";
    out << "</li>\n";
  }
  if (a.healthy()) out << "<li>no finding</li>\n";
  out << "</ul>\n";
}

// The labels of a pair's samples.
report::PromLabels pair_labels(const NodeMatrix& node, const PairResult& p) {
  return {{"host", node.host},
          {"src", std::to_string(p.src)},
          {"dst", std::to_string(p.dst)},
          {"src_bus_id", node.gpus[p.src].pci_bus_id},
          {"dst_bus_id", node.gpus[p.dst].pci_bus_id}};
}

}  // namespace

std::string render_html(const NvlinkRun& run, const Analysis& a) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>commsweep nvlink</title><style>"
         "body{font-family:sans-serif;margin:24px;color:#222}</style></head><body>\n"
      << "<h1>commsweep nvlink: " << count_of(run.nodes.size(), "node") << ", " << a.pairs << " ordered pairs</h1>\n"
      << "<p>Per ordered pair " << run.settings.iters << " copies of " << run.settings.bytes
      << " B; a pair is slow below " << fixed(run.settings.slow_fraction) << " x its node's median, or below "
      << fixed(run.settings.expected_floor) << " x the topology's rate by copy engine. " << a.slow_pairs
      << " slow pairs.</p>\n";
  for (std::size_t i = 0; i < run.nodes.size(); ++i) {
    const auto& node = run.nodes[i];
    out << "<h2>" << xml_escape(node.host) << " (" << count_of(node.gpus.size(), "GPU") << ")</h2>\n";
    node_findings(out, node, a.nodes[i]);
    if (node.pairs.empty()) continue;
    for (Metric m : {Metric::CeWrite, Metric::SmWrite}) node_heatmap(out, node, a.nodes[i], m, run.settings.slow_fraction);
  }
  out << "</body></html>\n";
  return out.str();
}

std::string render_prometheus(const NvlinkRun& run, const Analysis& a) {
  report::Exposition e({});
  e.family("commsweep_nvlink_pair_gbps", "GB/s (1e9 bytes/s) from src to dst inside a node, per test (ce_ or sm_ write, read, bidir).");
  for (const auto& node : run.nodes) {
    for (const auto& p : node.pairs) {
      for (Metric m : kAllMetrics) {
        if (!p.gbps[static_cast<std::size_t>(m)]) continue;
        report::PromLabels l = pair_labels(node, p);
        l.push_back({"test", metric_name(m)});
        e.sample(l, *p.gbps[static_cast<std::size_t>(m)]);
      }
    }
  }
  e.family("commsweep_nvlink_pair_latency_us", "One-way latency from src to dst: half a flag's round trip through peer memory, microseconds.");
  for (const auto& node : run.nodes)
    for (const auto& p : node.pairs)
      if (p.latency_us) e.sample(pair_labels(node, p), *p.latency_us);
  e.family("commsweep_nvlink_pair_expected_gbps", "The topology's rate from src to dst, one direction: NVML's active NVLinks x their rate.");
  for (const auto& node : run.nodes)
    for (const auto& p : node.pairs)
      if (const auto x = expected_gbps(node.gpus[p.src], node.gpus[p.dst])) e.sample(pair_labels(node, p), *x);
  e.family("commsweep_nvlink_pair_slow", "1 where the pair was judged slow (any test), else 0.");
  for (std::size_t n = 0; n < run.nodes.size(); ++n)
    for (std::size_t i = 0; i < run.nodes[n].pairs.size(); ++i)
      e.sample(pair_labels(run.nodes[n], run.nodes[n].pairs[i]), a.nodes[n].pairs[i].slow ? 1 : 0);
  e.family("commsweep_nvlink_gpu_gbps", "Per GPU, copy engine: all_to_one (every other GPU writes into it) and one_to_all (it writes into every other).");
  for (const auto& node : run.nodes) {
    for (const auto& t : node.targets) {
      const report::PromLabels l{{"host", node.host}, {"gpu", std::to_string(t.gpu)}, {"bus_id", node.gpus[t.gpu].pci_bus_id}};
      for (const auto& [test, value] : {std::make_pair("all_to_one", t.all_to_one_gbps), std::make_pair("one_to_all", t.one_to_all_gbps)}) {
        report::PromLabels with = l;
        with.push_back({"test", test});
        if (value) e.sample(with, *value);
      }
    }
  }
  e.family("commsweep_nvlink_gpu_active_links", "Active NVLinks per GPU as NVML counts them.");
  for (const auto& node : run.nodes)
    for (const auto& g : node.gpus)
      if (g.nvml_note.empty()) e.sample({{"host", node.host}, {"gpu", std::to_string(g.index)}, {"bus_id", g.pci_bus_id}}, g.nvlinks_active);
  e.family("commsweep_nvlink_wrong_words", "8-byte words that arrived wrong, over the run.");
  e.sample({}, static_cast<double>(a.wrong_total));
  e.family("commsweep_nvlink_exit_code", "Exit code of commsweep nvlink: 0 pass, 5 interrupted, 6 health FAIL, 8 wrong bytes, 10 a slow pair or GPU (docs/failures.md).");
  e.sample({}, exit_code_of(run, a));
  return e.text();
}

}  // namespace commsweep::nvlink
