// What a results file measured, grouped by what a baseline compares: one Observation per
// test, type, operator, root, size and half (out-of-place / in-place), or per EP configuration
// and phase. A file with several cycles (-N) holds several samples of one key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/result.hpp"

namespace commsweep::regress {

// For collectives: test, type, redop, root, size (bytes) and place (out_of_place | in_place).
// For EP rows: test "ep", type = dtype, redop = "none", config = "<routing> h<hidden> k<topk>
// e<experts>", size = tokens per rank, place = dispatch | combine.
struct Key {
  std::string test;
  std::string type;
  std::string redop = "none";
  int root = -1;
  std::string config;
  std::uint64_t size = 0;
  std::string place;

  bool is_ep() const { return test == "ep"; }
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
  std::vector<double> bandwidth_gbps;  // busbw for collectives, DeepEP bandwidth for EP
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

// Several results files of one night on one job (e.g. the collectives' and the EP sweep) as
// one run: rows appended, totals summed. Throws naming the file whose ranks' hosts differ
// from the first file's (per-rank times would not line up).
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
