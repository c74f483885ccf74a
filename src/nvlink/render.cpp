#include "nvlink/render.hpp"

#include <algorithm>
#include <sstream>

#include "core/strings.hpp"
#include "nvlink/expectation.hpp"

namespace commsweep::nvlink {
namespace {

constexpr int kCell = 9;  // "  1234.56"

std::string pad_left(const std::string& s, int width) {
  return s.size() >= static_cast<std::size_t>(width) ? " " + s : std::string(width - s.size(), ' ') + s;
}

std::string figure(const std::optional<double>& v) { return v ? fixed(*v) : "-"; }

void legend(std::ostringstream& out, const NodeMatrix& node) {
  for (const auto& g : node.gpus) {
    out << "#   GPU " << g.index << "  rank " << g.rank << "  " << g.pci_bus_id << "  " << g.name;
    if (g.nvml_note.empty()) {
      out << "  " << mode_of(g).text();
    } else {
      out << "  NVLinks not read: " << g.nvml_note;
    }
    out << "\n";
  }
}

void matrix(std::ostringstream& out, const NodeMatrix& node, Metric m, const NodeAnalysis& a) {
  const std::size_t n = node.gpus.size();
  std::vector<std::vector<std::string>> cells(n, std::vector<std::string>(n, "-"));
  for (std::size_t i = 0; i < node.pairs.size(); ++i) {
    const auto& p = node.pairs[i];
    const auto& v = p.gbps[static_cast<std::size_t>(m)];
    // A slow pair's figures carry a '*' (the verdict line names why).
    cells[p.src][p.dst] = v ? fixed(*v) + (a.pairs[i].slow ? "*" : "") : "n/a";
  }
  out << "# " << metric_name(m) << " GB/s, rows src, columns dst ('*' a slow pair)\n";
  out << "#src\\dst";
  for (std::size_t j = 0; j < n; ++j) out << pad_left(std::to_string(j), kCell);
  out << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    out << pad_left(std::to_string(i), 8);
    for (std::size_t j = 0; j < n; ++j) out << pad_left(cells[i][j], kCell);
    out << "\n";
  }
}

void medians_line(std::ostringstream& out, const NodeAnalysis& a) {
  out << "# node medians:";
  for (Metric m : kAllMetrics) out << " " << metric_name(m) << " " << figure(a.median_gbps[static_cast<std::size_t>(m)]);
  out << " GB/s; latency " << figure(a.median_latency_us) << " us";
  const auto& ce = a.median_gbps[static_cast<std::size_t>(Metric::CeWrite)];
  if (a.expected_gbps && ce) {
    out << "; ce_write " << fixed(*ce / *a.expected_gbps) << " x the topology's " << fixed(*a.expected_gbps)
        << " GB/s a direction";
  }
  out << "\n";
}

void targets(std::ostringstream& out, const NodeMatrix& node, const NodeAnalysis& a) {
  if (node.targets.empty()) return;
  out << "# all-to-one (every other GPU writes into it) and one-to-all (it writes into every other), copy engine, GB/s\n";
  out << "#    GPU";
  for (const auto& t : node.targets) out << pad_left(std::to_string(t.gpu), kCell);
  out << "\n#   into";
  for (std::size_t i = 0; i < node.targets.size(); ++i)
    out << pad_left(figure(node.targets[i].all_to_one_gbps) + (a.targets[i].slow ? "*" : ""), kCell);
  out << "\n#  out of";
  for (std::size_t i = 0; i < node.targets.size(); ++i)
    out << pad_left(figure(node.targets[i].one_to_all_gbps) + (a.targets[i].slow ? "*" : ""), kCell);
  out << "\n";
}

// --show-expected: per pair, each test's expected figure (results/expected/) and the pair's share
// of it, in the order of the matrices' tests, then the latency; only the tests some pair of the
// node is held to, "-" where a pair has none.
void expected_table(std::ostringstream& out, const NodeMatrix& node, const NodeAnalysis& a) {
  std::vector<std::string> keys;
  for (Metric m : kAllMetrics) keys.push_back(metric_name(m));
  keys.push_back("latency_us");
  const auto value_of = [](const PairVerdict& v, const std::string& key) {
    return std::find_if(v.expected.begin(), v.expected.end(), [&](const report::ExpectedValue& e) { return e.key == key; });
  };
  std::vector<std::string> held;
  for (const auto& key : keys)
    if (std::any_of(a.pairs.begin(), a.pairs.end(), [&](const PairVerdict& v) { return value_of(v, key) != v.expected.end(); }))
      held.push_back(key);
  if (held.empty()) {
    out << "# expected figures (--show-expected): none applies to this node's GPUs\n";
    return;
  }
  constexpr int kExpected = 10, kShare = 8;  // "  expected", "  of_exp"
  out << "# expected figures (--show-expected): per pair and test the expected figure (GB/s; latency us) and the pair's "
         "share of it (a latency's: expected / measured)\n#       ";
  for (const auto& key : held) out << pad_left(key, kExpected + kShare);
  out << "\n#src>dst";
  for (std::size_t k = 0; k < held.size(); ++k) out << pad_left("expected", kExpected) << pad_left("of_exp", kShare);
  out << "\n";
  for (std::size_t i = 0; i < node.pairs.size(); ++i) {
    out << pad_left(std::to_string(node.pairs[i].src) + ">" + std::to_string(node.pairs[i].dst), 8);
    for (const auto& key : held) {
      const auto e = value_of(a.pairs[i], key);
      const bool none = e == a.pairs[i].expected.end();
      out << pad_left(none ? "-" : fixed(e->value), kExpected) << pad_left(none ? "-" : fixed(e->of_expected), kShare);
    }
    out << "\n";
  }
}

std::string why_text(const std::vector<std::string>& why) {
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

void findings(std::ostringstream& out, const NodeMatrix& node, const NodeAnalysis& a) {
  for (const auto& f : a.gpu_findings) out << "# SLOW GPU on " << node.host << ": " << f << "\n";
  for (const auto& f : a.expected_findings) out << "# " << f << "\n";
  for (std::size_t i = 0; i < node.pairs.size(); ++i) {
    const auto& p = node.pairs[i];
    if (p.wrong > 0) {
      out << "# WRONG pair on " << node.host << ": " << gpu_label(node.gpus[p.src]) << " -> " << gpu_label(node.gpus[p.dst])
          << ": " << p.wrong << " wrong 8-byte words\n";
    }
    if (!a.pairs[i].slow) continue;
    const Gpu& s = node.gpus[p.src];
    const Gpu& d = node.gpus[p.dst];
    out << "# SLOW pair on " << node.host << ": " << gpu_label(s) << " -> " << gpu_label(d) << ": "
        << why_text(a.pairs[i].why) << "\n#   NVLink counters over the run: " << counters_rise(s) << "; "
        << counters_rise(d) << "\n";
  }
  for (const auto& f : a.gpu_state_findings) out << "# " << f << "\n";
  for (std::size_t i = 0; i < node.targets.size(); ++i) {
    if (!a.targets[i].slow) continue;
    const Gpu& g = node.gpus[node.targets[i].gpu];
    out << "# SLOW GPU on " << node.host << ": " << gpu_label(g) << ": " << why_text(a.targets[i].why)
        << "\n#   NVLink counters over the run: " << counters_rise(g) << "\n";
  }
}

// One line of the nodes x pairs summary.
std::string summary_line(const NodeMatrix& node, const NodeAnalysis& a) {
  const std::size_t ce = static_cast<std::size_t>(Metric::CeWrite), sm = static_cast<std::size_t>(Metric::SmWrite);
  std::optional<double> lowest;
  std::string where = "-";
  for (const auto& p : node.pairs) {
    if (p.gbps[ce] && (!lowest || *p.gbps[ce] < *lowest)) {
      lowest = p.gbps[ce];
      where = std::to_string(p.src) + ">" + std::to_string(p.dst);
    }
  }
  std::ostringstream line;
  line << "#   " << node.host << "  " << node.gpus.size() << " GPUs  ce_write median " << figure(a.median_gbps[ce])
       << " lowest " << figure(lowest) << " (" << where << ")  sm_write median " << figure(a.median_gbps[sm])
       << "  latency " << figure(a.median_latency_us) << " us  " << a.slow_pairs << " slow of " << node.pairs.size()
       << (a.healthy() ? "  OK" : "  FINDINGS") << "\n";
  return line.str();
}

}  // namespace

std::string counters_rise(const Gpu& g) {
  if (g.before.empty() || g.after.size() != g.before.size()) return "GPU " + std::to_string(g.index) + " not read";
  std::uint64_t rise[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < g.before.size(); ++i) {
    const auto& b = g.before[i];
    const auto& a = g.after[i];
    const std::optional<std::uint64_t>* pairs[4][2] = {
        {&b.replay, &a.replay}, {&b.recovery, &a.recovery}, {&b.crc_flit, &a.crc_flit}, {&b.crc_data, &a.crc_data}};
    for (int k = 0; k < 4; ++k) {
      if (*pairs[k][0] && *pairs[k][1] && **pairs[k][1] >= **pairs[k][0]) rise[k] += **pairs[k][1] - **pairs[k][0];
    }
  }
  return "GPU " + std::to_string(g.index) + " +" + std::to_string(rise[0]) + " replay, +" + std::to_string(rise[1]) +
         " recovery, +" + std::to_string(rise[2]) + " CRC flit, +" + std::to_string(rise[3]) + " CRC data over " +
         count_of(g.before.size(), "link");
}

std::string render_header(const RunConfig& s, std::size_t nodes, std::size_t gpus) {
  std::ostringstream out;
  out << "# commsweep nvlink: every ordered GPU pair inside each of " << count_of(nodes, "node") << " (" << gpus
      << " GPUs), one pair at a time, every node at once\n"
      << "# per pair: " << s.iters << " timed copies of " << s.bytes << " B after " << s.warmup
      << " warm-up, by copy engine (cudaMemcpyAsync) and by SM (16-byte loads/stores through the peer pointer):\n"
      << "#   write (src pushes), read (dst pulls), bidir (both push at once: both directions' bytes); every byte "
         "verified on the receiver\n"
      << "#   latency: half the round trip of a 4-byte flag through peer memory, " << s.latency_iters
      << " round trips; then all-to-one and one-to-all per GPU (copy engine)\n";
  if (!s.fault.empty()) out << "# note: planted fault " << s.fault << " (testing only)\n";
  return out.str();
}

std::string render_node(const NodeMatrix& node, const NodeAnalysis& a, bool show_expected) {
  std::ostringstream out;
  out << "# node " << node.host << ": " << count_of(node.gpus.size(), "GPU") << "\n";
  legend(out, node);
  if (node.pairs.empty()) {
    out << "# no pair on this node (one GPU)\n";
    return out.str();
  }
  matrix(out, node, Metric::CeWrite, a);
  matrix(out, node, Metric::SmWrite, a);
  medians_line(out, a);
  targets(out, node, a);
  if (show_expected) expected_table(out, node, a);
  findings(out, node, a);
  return out.str();
}

std::string render_report(const NvlinkRun& run, const Analysis& a, bool show_expected) {
  std::ostringstream out;
  const bool few = run.nodes.size() <= kMatricesShown;
  for (std::size_t i = 0; i < run.nodes.size(); ++i) {
    if (few || !a.nodes[i].healthy()) out << render_node(run.nodes[i], a.nodes[i], show_expected);
  }
  if (run.nodes.size() > 1) {
    out << "# nodes x pairs (" << count_of(run.nodes.size(), "node") << (few ? "" : "; matrices above only for the nodes with findings")
        << "):\n";
    for (std::size_t i = 0; i < run.nodes.size(); ++i) out << summary_line(run.nodes[i], a.nodes[i]);
  }
  out << "# slow below " << fixed(run.settings.slow_fraction) << " x the node median (every test), below "
      << fixed(run.settings.expected_floor) << " x the topology's rate (copy engine), or above "
      << fixed(run.settings.latency_over) << " x the median latency\n";
  if (!run.complete) out << "# incomplete: " << (run.interrupted_by.empty() ? "stopped" : run.interrupted_by) << "\n";
  out << "# nvlink: " << count_of(run.nodes.size(), "node") << ", " << count_of(static_cast<std::size_t>(a.pairs), "ordered pair") << ": ";
  if (a.wrong_total > 0) out << a.wrong_total << " wrong words; ";
  if (a.expected_fails > 0 || a.expected_warns > 0)
    out << a.expected_fails << " FAIL and " << a.expected_warns << " WARN below the expected figures; ";
  if (a.slow_pairs == 0 && a.slow_targets == 0 && a.gpu_findings == 0) {
    out << "no slow pair\n";
  } else {
    out << count_of(static_cast<std::size_t>(a.slow_pairs), "slow pair") << ", "
        << count_of(static_cast<std::size_t>(a.slow_targets), "slow GPU") << " in all-to-one/one-to-all, "
        << count_of(static_cast<std::size_t>(a.gpu_findings), "GPU") << " with links missing\n";
  }
  return out.str();
}

}  // namespace commsweep::nvlink
