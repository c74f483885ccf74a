// What a results file measured, grouped by what a baseline compares: one Observation per
// test, type, operator, root, size and half (out-of-place / in-place), per EP configuration
// and phase, or per GPU pair and test of nvlink and node pair of pairs. A file with several
// cycles (-N) holds several samples of one key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/result.hpp"

namespace commsweep::regress {

// The tests of the matrices, as a Key names them: `commsweep nvlink`'s GPU pairs and targets,
// `commsweep pairs`' node pairs (regress/matrices.hpp reads their documents).
inline constexpr const char* kNvlinkTest = "nvlink";
inline constexpr const char* kPairsTest = "pairs";
// The place of an nvlink pair's latency: a time (lower is better), its other places bandwidths.
inline constexpr const char* kLatencyPlace = "latency";

// For collectives: test, type, redop, root, size (bytes) and place (out_of_place | in_place).
// For EP rows: test "ep", type = dtype, redop = "none", config = "<routing> h<hidden> k<topk>
// e<experts>", size = tokens per rank, place = dispatch | combine.
// For nvlink: test "nvlink", type "-", config = "<host> GPU <src> (<PCI bus id>) -> GPU <dst>
// (<PCI bus id>)" for an ordered pair (the bus id left out where the file has none) or "<host>
// GPU <i> (<PCI bus id>)" for a target, size = the run's bytes per copy, place = the copy test
// (ce_write, ce_read, ce_bidir, sm_write, sm_read, sm_bidir), "latency", or all_to_one |
// one_to_all for a target.
// For pairs: test "pairs", type = the run's type ("float"), config = "<node> <-> <node>" (the
// names in order), size = bytes each way, place "sendrecv"; a document of more than 64 nodes
// (detail "sparse": its slow pairs only) is judged per node instead: config = the node,
// place node_median | node_min (the median and the slowest of its pairs).
struct Key {
  std::string test;
  std::string type;
  std::string redop = "none";
  int root = -1;
  std::string config;
  std::uint64_t size = 0;
  std::string place;

  bool is_ep() const { return test == "ep"; }
  bool is_matrix() const { return test == kNvlinkTest || test == kPairsTest; }
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

std::map<Key, Observation> observe(const report::Results& results);

// Several results files of one night on one job (e.g. the collectives' and the EP sweep, the
// nvlink and pairs files) as one run: rows and documents appended, totals summed. Throws naming
// the file whose ranks' hosts differ from those of the first file with per-rank times (rows or
// EP rows: the per-rank times would not line up); the matrices keep no per-rank times.
report::Results merge_runs(const std::vector<report::Results>& runs, const std::vector<std::string>& names);

// Statistics over samples: the median, and the spread as (max - min) / median in percent
// (0 for one sample or a zero median).
double median(std::vector<double> values);
double spread_pct(const std::vector<double>& values);

// The noise one row shows of itself: its two halves, out-of-place and in-place, are two timings
// of one size moments apart; a preempted or throttled moment tells them apart. (max - min) / min
// in percent; 0 where a half is missing (EP rows). The ranks' spread is not noise but imbalance
// (a straggler, judged apart), so it does not count.
double within_row_spread_pct(double time_us, double other_half_time_us);

}  // namespace commsweep::regress
