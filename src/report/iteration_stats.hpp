// Per-iteration statistics of one half of a row, and the slowest rank across the rows (pure:
// the engine gathers the ranks' times, the printers and compare read what this computes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::report {

// An iteration is a spike when it takes more than this times the median (p50_us) of its half.
// nccl-tests' tools/analyze_perf_json.py flags spikes at 1.5 x (its default --threshold, there
// against the mean); against the median one spike cannot move its own threshold.
inline constexpr double kSpikeFactor = 1.5;

// The bound on what a row keeps of each rank: ranks x iterations per half. Beyond it the
// per-rank series (per_process_max_times_us) are dropped from the row and only the statistics,
// times_us and rank_max_us are kept: 64 Ki doubles = 512 KiB per half, e.g. 64 ranks x 1,024
// iterations or 1,024 ranks x 64 (docs/collectives.md, "Every iteration").
inline constexpr std::size_t kMaxKeptRankTimes = std::size_t{1} << 16;
// At most this many timed iterations (graph launches with -G) per half are timed one by one: one
// CUDA event each on the nccl backend, created once and kept. Beyond it (-n up to 2^24) the
// sweep times the span only and says so once.
inline constexpr int kMaxTimedIterations = 1 << 16;

// nccl-tests' nearest-rank percentile of sorted samples (util.cu: index ceil(n p / 100) - 1,
// at most n - 1; p50 is sorted[n / 2]): with fewer than 100 samples p99 is the max.
double nearest_rank(const std::vector<double>& sorted, int percentile);

// The statistics of RANK_TIMES ([rank][iteration], every rank the same count; at least one
// iteration): times_us is per iteration the slowest rank's time, the statistics are over it.
IterationStats iteration_stats(const std::vector<std::vector<double>>& rank_times);

// A half's slowest rank (Timing::slowest_rank) counts only where its time is at least this much
// above the median rank's: ranks that finish moments apart are not a straggler. 10%: compare's
// straggler rule (regress::StragglerRules::min_slower_pct).
inline constexpr double kStragglerMinSlowerPct = 10;

// How often each rank was a half's slowest rank, by kStragglerMinSlowerPct, over ROWS.
struct SlowestTally {
  std::vector<int> slowest;  // index = rank
  int timings = 0;           // halves counted
};
SlowestTally slowest_tally(const std::vector<ResultRow>& rows);

// A rank that was the slowest (so) in at least kConsistentShare of at least kConsistentMinTimings
// halves, in a job of at least 2 ranks: nullopt otherwise. By chance alone, 2 ranks and 16 halves
// reach 75% with a probability of 4%, 4 ranks with less than 1e-5.
inline constexpr double kConsistentShare = 0.75;
inline constexpr int kConsistentMinTimings = 4;
std::optional<int> consistent_straggler(const SlowestTally& tally);

// The finding printed after a table: "rank 2 (host h) was the slowest rank in 30 of 32
// timings (94%): a consistent straggler ..."; "" when there is none.
std::string straggler_finding(const SlowestTally& tally, const std::vector<std::string>& hosts_by_rank);

}  // namespace commsweep::report
