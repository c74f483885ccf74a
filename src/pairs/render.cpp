#include "pairs/render.hpp"
#include "core/strings.hpp"
#include "report/gpu_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>

namespace commsweep::pairs {
namespace {

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pair_label(const PairMeasurement& p) { return node_label(p.node_a) + "-" + node_label(p.node_b); }

// "rank 3 (vm/node1, GPU 0000:19:00.0)"
std::string rank_text(const PairsRun& run, int node, int rank) {
  const Node& n = run.nodes[node];
  const auto k = std::find(n.ranks.begin(), n.ranks.end(), rank) - n.ranks.begin();
  const std::string pci = k < static_cast<long>(n.pci_bus_ids.size()) ? n.pci_bus_ids[k] : "-";
  return "rank " + std::to_string(rank) + " (" + n.name + ", GPU " + pci + ")";
}

std::string rank_list(const std::vector<int>& ranks) {
  if (ranks.empty()) return "none";
  const bool contiguous = ranks.back() - ranks.front() + 1 == static_cast<int>(ranks.size());
  if (ranks.size() > 1 && contiguous) {
    return "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
  }
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? "," : "") + std::to_string(ranks[i]);
  return out;
}

const PairMeasurement* find_pair(const PairsRun& run, int a, int b) {
  for (const auto& p : run.pairs) {
    if ((p.node_a == a && p.node_b == b) || (p.node_a == b && p.node_b == a)) return &p;
  }
  return nullptr;
}

std::string legend(const PairsRun& run) {
  std::ostringstream out;
  out << "# Nodes:\n";
  for (std::size_t i = 0; i < run.nodes.size(); ++i) {
    const Node& n = run.nodes[i];
    out << "#   " << node_label(static_cast<int>(i)) << "  " << n.name << "  " << rank_list(n.ranks) << "  GPUs";
    for (std::size_t k = 0; k < n.pci_bus_ids.size(); ++k) out << (k ? "," : " ") << n.pci_bus_ids[k];
    out << "\n";
  }
  return out.str();
}

std::string matrix(const PairsRun& run, const Analysis& a) {
  const int n = static_cast<int>(run.nodes.size());
  std::size_t width = 8;
  for (int i = 0; i < n; ++i) width = std::max(width, node_label(i).size() + 2);
  std::ostringstream out;
  out << "# GB/s each way (both directions at once), per pair its slowest rail; '-' the node itself\n";
  out << "#" << std::string(width - 1, ' ');
  for (int j = 0; j < n; ++j) out << pad_left(node_label(j), width);
  out << "\n";
  for (int i = 0; i < n; ++i) {
    out << pad_left(node_label(i), width);
    for (int j = 0; j < n; ++j) {
      std::string cell = "-";
      if (i != j) {
        const PairMeasurement* p = find_pair(run, i, j);
        cell = p == nullptr ? "?" : fixed(a.verdicts[p - run.pairs.data()].gbps);
      }
      out << pad_left(cell, width);
    }
    out << "\n";
  }
  return out.str();
}

std::string slow_pair_line(const PairsRun& run, const Analysis& a, int index) {
  const PairMeasurement& p = run.pairs[index];
  const PairVerdict& v = a.verdicts[index];
  const Rail* rail = nullptr;
  for (const auto& r : p.rails) {
    if (r.local_rank == v.slowest_rail) rail = &r;
  }
  std::ostringstream out;
  out << "# SLOW pair " << pair_label(p) << ": " << fixed(v.gbps) << " GB/s, " << fixed(v.ratio) << " x median"
      << (v.below_top_third ? ", " + fixed(v.ratio_to_top_third) + " x the top-third pair" : "") << "; slowest rail local rank "
      << v.slowest_rail;
  if (rail != nullptr) {
    out << ": " << rank_text(run, p.node_a, rail->rank_a) << " <-> " << rank_text(run, p.node_b, rail->rank_b);
  }
  out << "\n";
  return out.str();
}

// Why no node is named: each slow pair alone, or every node in as many slow pairs.
std::string no_suspect_line(const PairsRun& run, const Analysis& a) {
  std::vector<int> count(run.nodes.size(), 0);
  for (int i : a.slow) ++count[run.pairs[i].node_a], ++count[run.pairs[i].node_b];
  const int most = *std::max_element(count.begin(), count.end());
  if (most >= 2) {
    return "# no node stands out: every node is in " + std::to_string(most) +
           " slow pairs (a fabric-wide slowdown, or noise: measure again, or with -n larger)\n";
  }
  return std::string("# no node is in more than one slow pair: each slow pair's link, or one of its two nodes, "
                     "is suspect") +
         (run.nodes.size() == 2 ? " (with 2 nodes, add a third node to tell which)" : "") + "\n";
}

// Above this many nodes the text leaves out the legend and the matrix (a line per node).
constexpr std::size_t kMatrixNodes = 32;

// --adaptive: what the follow-up named, on the topology.
std::string adaptive_findings(const PairsRun& run) {
  const bool followed = run.planned_rounds > 0 && run.rounds.size() > static_cast<std::size_t>(run.planned_rounds);
  if (!followed && run.findings.empty()) return "";
  std::ostringstream out;
  out << "# adaptive follow-up: " << run.rounds.size() - run.planned_rounds << " round(s) after the "
      << run.planned_rounds << " of " << run.pattern << "; topology: " << run.topology.source << "\n";
  if (run.findings.empty()) out << "# FINDING none: no slow pair left\n";
  for (const auto& f : run.findings) {
    std::string what;
    switch (f.kind) {
      case plan::FindingKind::Node: what = "NODE " + run.topology.nodes[f.node]; break;
      case plan::FindingKind::LeafUplinks: what = "LEAF UPLINKS " + run.topology.leaf_names[f.leaf]; break;
      case plan::FindingKind::Link: what = "LINK " + run.topology.nodes[f.node] + " <-> " + run.topology.nodes[f.other]; break;
      case plan::FindingKind::Unresolved: what = "UNRESOLVED " + run.topology.nodes[f.node]; break;
    }
    out << "# FINDING " << what << ": " << f.why << "\n";
  }
  return out.str();
}

// When one node's pairs hold half the median's rails or more, a bad node's rails are the median:
// said, with what still judges the spread (the top-third pair).
std::string median_caveat(const PairsRun& run, const Analysis& a) {
  if (!median_unreliable(a)) return "";
  const std::string why =
      run.pairs.size() == 1
          ? "# one pair: a node slow on every rail cannot show against the median of its own rails"
          : "# few nodes: a node's pairs hold up to " + std::to_string(a.rails_of_busiest_node) + " of the " +
                std::to_string(a.median_rails) + " rails (" + std::to_string(a.pairs_of_busiest_node) + " of " +
                std::to_string(run.pairs.size()) + " pairs), half or more, so one bad node's rails can be the median";
  return why + "; the top-third pair judges the spread: below " + fixed(run.settings.slow_fraction_of_top_third) +
         " x it is slow whatever the median\n";
}

std::string findings(const PairsRun& run, const Analysis& a) {
  std::ostringstream out;
  out << "# median rail " << fixed(a.median_gbps) << " GB/s over " << count_of(a.rails, "rail") << " of "
      << count_of(run.pairs.size(), "pair") << "; a pair is slow below " << fixed(run.settings.slow_fraction) << " x median = "
      << fixed(a.slow_below_gbps) << " GB/s";
  if (a.top_third >= 0) {
    out << ", or below " << fixed(run.settings.slow_fraction_of_top_third)
        << " x the top-third pair (the slowest of the fastest third: " << pair_label(run.pairs[a.top_third]) << " "
        << fixed(a.top_third_gbps) << " GB/s) = " << fixed(a.slow_below_top_third_gbps)
        << " GB/s";
  }
  out << "\n" << median_caveat(run, a);
  if (a.slow.empty()) {
    const auto lowest = std::min_element(a.verdicts.begin(), a.verdicts.end(),
                                         [](const PairVerdict& x, const PairVerdict& y) { return x.ratio < y.ratio; });
    out << "# no slow pair";
    if (lowest != a.verdicts.end()) {
      out << " (the slowest, " << pair_label(run.pairs[lowest - a.verdicts.begin()]) << ", is at " << fixed(lowest->ratio)
          << " x median, " << fixed(lowest->ratio_to_top_third) << " x the top-third pair)";
    }
    out << "\n";
    return out.str();
  }
  for (int i : a.slow) out << slow_pair_line(run, a, i);
  for (const auto& f : gpu_state_findings(run, a)) out << "# " << f << "\n";
  for (const auto& s : a.suspects) {
    out << "# LIKELY BAD NODE " << node_label(s.node) << " " << run.nodes[s.node].name << ": in " << s.slow_pairs
        << " slow pairs (of its " << s.pairs << "); its slowest rail: local rank " << s.local_rank << ", rank "
        << s.rank << ", GPU " << s.pci_bus_id << "\n";
  }
  if (a.suspects.empty()) out << no_suspect_line(run, a);
  return out.str();
}

}  // namespace

std::string node_label(int node) { return "N" + std::to_string(node); }

std::vector<std::string> gpu_state_findings(const PairsRun& run, const Analysis& a) {
  std::vector<std::string> out;
  for (int i : a.slow) {
    const PairMeasurement& p = run.pairs[i];
    const auto name = [&](const report::GpuWindow& w) {
      const auto& a_ranks = run.nodes[p.node_a].ranks;
      const bool in_a = std::find(a_ranks.begin(), a_ranks.end(), w.rank) != a_ranks.end();
      return rank_text(run, in_a ? p.node_a : p.node_b, w.rank);
    };
    const std::string during = "the " + pair_label(p) + " pair's exchange in round " + std::to_string(p.round + 1);
    for (auto& f : report::throttle_findings(p.gpu_state, name, during)) out.push_back(std::move(f));
  }
  return out;
}

std::string render_header(const PairsRun& run) {
  const Settings& s = run.settings;
  const int n = static_cast<int>(run.nodes.size());
  std::ostringstream out;
  if (run.pattern == "all-pairs") {
    out << "# commsweep pairs: sendrecv between every pair of " << n << " nodes in "
        << count_of(run.rounds.size(), "round") << " of disjoint pairs" << (n % 2 ? " (one node sits out each round)" : "") << "\n";
  } else {
    out << "# commsweep pairs: sendrecv between pairs of " << n << " nodes, pattern " << run.pattern << ": "
        << count_of(run.rounds.size(), "round") << " of disjoint pairs\n";
  }
  const plan::Topology topology = topology_of(run);
  out << "# topology: " << topology.source << "\n";
  for (const auto& note : topology.notes) out << "# note: " << note << "\n";
  out << "# rail: local rank k of one node <-> local rank k of the other, every rail of a pair at once, both "
         "directions at once; "
      << s.bytes << " B each way (" << s.count << " " << s.type << "), " << s.iters << " iterations after "
      << s.warmup << " warm-up, "
      << (s.check > 0 ? "data verified bit-exact " + std::to_string(s.check) + "x per round" : "data not verified (-c 0)")
      << "\n";
  std::size_t fewest = run.nodes.empty() ? 0 : run.nodes[0].ranks.size(), most = fewest;
  for (const auto& node : run.nodes) {
    fewest = std::min(fewest, node.ranks.size());
    most = std::max(most, node.ranks.size());
  }
  if (fewest != most) {
    out << "# note: the nodes have different rank counts (";
    for (int i = 0; i < n; ++i) out << (i ? ", " : "") << node_label(i) << " " << run.nodes[i].ranks.size();
    out << "): a pair exchanges on the local ranks both nodes have; the others sit out\n";
  }
  return out.str();
}

namespace {

// Above this many pairs a round's line gives its size, median and slowest pair only.
constexpr std::size_t kRoundPairsShown = 16;

// A round of many pairs: its size, slowest pair and median instead of every pair.
std::string round_summary(const PairsRun& run, int round) {
  std::vector<double> gbps;
  const PairMeasurement* slowest = nullptr;
  double low = 0;
  // The round's pairs are the last ones measured: a scan of every pair per round would cost
  // rounds x pairs (34 G steps at 4,096 nodes).
  for (auto it = run.pairs.rbegin(); it != run.pairs.rend() && it->round >= round; ++it) {
    const PairMeasurement& p = *it;
    if (p.round != round || p.rails.empty()) continue;
    double s = p.rails[0].gbps;
    for (const auto& r : p.rails) s = std::min(s, r.gbps);
    gbps.push_back(s);
    if (slowest == nullptr || s < low) slowest = &p, low = s;
  }
  std::ostringstream out;
  out << "# round " << round + 1 << " of " << run.rounds.size() << ": " << gbps.size() << " pairs";
  if (slowest != nullptr) out << ", median " << fixed(median(gbps)) << " GB/s, slowest " << pair_label(*slowest) << " " << fixed(low) << " GB/s";
  if (!run.rounds[round].label.empty()) out << " (" << run.rounds[round].label << ")";
  out << "\n";
  return out.str();
}

}  // namespace

std::string render_round(const PairsRun& run, int round) {
  if (run.rounds[round].pairs.size() > kRoundPairsShown) return round_summary(run, round);
  std::ostringstream out;
  out << "# round " << round + 1 << " of " << run.rounds.size() << ":";
  int shown = 0;
  auto first = run.pairs.end();
  while (first != run.pairs.begin() && std::prev(first)->round >= round) --first;
  for (auto it = first; it != run.pairs.end(); ++it) {
    const PairMeasurement& p = *it;
    if (p.round != round) continue;
    double slowest = p.rails.empty() ? 0 : p.rails[0].gbps;
    for (const auto& r : p.rails) slowest = std::min(slowest, r.gbps);
    out << (shown++ ? ", " : " ") << pair_label(p) << " " << fixed(slowest) << " GB/s";
  }
  const int out_node = run.rounds[round].sits_out;
  if (out_node >= 0) out << " (" << node_label(out_node) << " sits out)";
  if (!run.rounds[round].label.empty()) out << " [" << run.rounds[round].label << "]";
  out << "\n";
  return out.str();
}

std::string render_report(const PairsRun& run, const Analysis& a) {
  std::ostringstream out;
  if (run.nodes.size() <= kMatrixNodes) {
    out << legend(run) << matrix(run, a);
  } else {
    out << "# " << run.nodes.size() << " nodes: the legend and the node x node matrix are left out above " << kMatrixNodes
        << " nodes (--json holds per-node and per-leaf summaries, --html the heatmap by leaf)\n";
  }
  out << findings(run, a) << adaptive_findings(run);
  if (run.settings.check == 0) {
    out << "# Out of bounds values : N/A (-c 0: not verified)\n";
  } else {
    out << "# Out of bounds values : " << a.wrong_total << (a.wrong_total == 0 ? " OK" : " FAILED") << "\n";
  }
  if (!run.complete) out << "# interrupted by " << run.interrupted_by << ": the rounds above were measured, the rest were not\n";
  return out.str();
}

}  // namespace commsweep::pairs
