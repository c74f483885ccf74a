// What a results file measured, grouped by what a baseline compares: one Observation per key,
// read from the file's figures (report/figure.hpp), whatever workload took them: per test, type,
// operator, root, size and half (out-of-place / in-place) of the collectives, per EP
// configuration and phase, per pair and test of a workload's matrix. A file with several cycles
// (-N) holds several samples of one key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/figure.hpp"
#include "report/result.hpp"
#include "core/median.hpp"

namespace commsweep::regress {

// The place of a matrix pair's latency: a time (lower is better), its other places bandwidths.
inline constexpr const char* kLatencyPlace = "latency";

// For collectives: test, type, redop, root, size (bytes) and place (out_of_place | in_place).
// For EP rows: test "ep", type = dtype, redop = "none", config = "<routing> h<hidden> k<topk>
// e<experts>", size = tokens per rank, place = dispatch | combine.
// For a workload's matrix (any key with a config that is not EP's): as its figures' series say
// (report::Series, set by the workload's reader: nvlink/figures.hpp, pairs/figures.hpp): test =
// the workload, config = the pair (or the node, the GPU), size = its bytes, place = its test.
struct Key {
  std::string test;
  std::string type;
  std::string redop = "none";
  int root = -1;
  std::string config;
  std::uint64_t size = 0;
  std::string place;

  bool is_ep() const { return test == "ep"; }
  // A matrix's pair (or node, GPU): a config that is not an EP configuration (the collectives'
  // keys have none), whichever workload measured it.
  bool is_matrix() const { return !is_ep() && !config.empty(); }
  // No out-of-place / in-place halves that must agree (EP phases, a matrix's tests): each
  // measurement is judged alone, and the tail rule (per-iteration p99) does not apply.
  bool judged_alone() const { return is_ep() || is_matrix(); }
  auto tie() const { return std::tie(test, type, redop, root, config, size, place); }
  bool operator<(const Key& o) const { return tie() < o.tie(); }
  bool operator==(const Key& o) const { return tie() == o.tie(); }
};

// "all_reduce float sum 1M out_of_place", for messages and tables.
std::string describe(const Key& key);
// "1K", "64M", "8G" where exact, else bytes: the sizes' usual spelling.
std::string size_text(std::uint64_t bytes);

struct Observation {
  Key key;
  // busbw for collectives, DeepEP bandwidth for EP, a pair's or target's GB/s for the matrices
  // (0 for a latency)
  std::vector<double> bandwidth_gbps;
  std::vector<double> time_us;
  std::vector<std::vector<double>> rank_time_us;  // one per sample
  // One per sample: how far apart the row's two halves (out-of-place, in-place) are, in
  // percent: the noise a single run shows of itself (within_row_spread_pct).
  std::vector<double> within_spread_pct;
  std::optional<std::uint64_t> wrong;             // summed over samples; empty: not checked
  std::vector<double> p99_us;  // per sample that kept its iterations: their p99 (the tail rule)
  std::vector<report::IterationStats> per_iter;  // those samples' statistics (the HTML's spread)
};

// From the figures of RESULTS (report::for_each_figure): a sample of a key is one time figure
// and one bandwidth figure of its series, next to each other (report::Role); a bandwidth alone
// gives its time from its bytes, a time alone (a latency) bandwidth 0.
std::map<Key, Observation> observe(const report::Results& results);

// Several results files of one night on one job (e.g. the collectives' and the EP sweep, the
// files of the workloads with documents of their own) as one run: rows, documents and sheets
// appended, totals summed. Throws naming
// the file whose ranks' hosts differ from those of the first file with per-rank times (rows or
// EP rows: the per-rank times would not line up); the matrices keep no per-rank times.
report::Results merge_runs(const std::vector<report::Results>& runs, const std::vector<std::string>& names);

// Statistics over samples: the median, and the spread as (max - min) / median in percent
// (0 for one sample or a zero median). The median is core/median.hpp's.
using commsweep::median;
double spread_pct(const std::vector<double>& values);

// The noise one row shows of itself: its two halves, out-of-place and in-place, are two timings
// of one size moments apart; a preempted or throttled moment tells them apart. (max - min) / min
// in percent; 0 where a half is missing (EP rows). The ranks' spread is not noise but imbalance
// (a straggler, judged apart), so it does not count.
double within_row_spread_pct(double time_us, double other_half_time_us);

}  // namespace commsweep::regress
