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
// At most this many timed iterations (graph launches with -G) per half are timed one by one (on the
// nccl backend by NCCL's kernel timestamps, or one CUDA event each, created once and kept). Beyond it (-n up to 2^24) the
// sweep times the span only and says so once.
inline constexpr int kMaxTimedIterations = 1 << 16;

// nccl-tests' nearest-rank percentile of sorted samples (util.cu: index ceil(n p / 100) - 1,
// at most n - 1; p50 is sorted[n / 2]): with fewer than 100 samples p99 is the max.
double nearest_rank(const std::vector<double>& sorted, int percentile);

// The statistics of RANK_TIMES ([rank][iteration], every rank the same count; at least one
// iteration): times_us is per iteration the slowest rank's time, the statistics are over it.
IterationStats iteration_stats(const std::vector<std::vector<double>>& rank_times);

// A half's slowest rank (Timing::slowest_rank) counts only where its time is at least this much
// above the median rank's: ranks that finish moments apart are not a straggler. The bound is the
// backend's, set by how closely healthy ranks agree on it:
// - mpi (host clocks, a loaded CI machine): 10%, compare's straggler rule
//   (regress::StragglerRules::min_slower_pct);
// - nccl (the GPUs' clocks): 1%. On 4 x H100 (docs/iterations.md) a healthy all_reduce sweep's
//   slowest rank was at most 0.94% above the median rank (62 halves); in 10 identical sweeps of
//   168 halves at most 3 halves a sweep were above 1%, scattered over the ranks. With
//   --fault slow:2, rank 2 was 2.3 to 3.9% above in every half: a collective makes the others
//   wait for the slow rank, so their times grow with its and only the difference is its own.
inline constexpr double kStragglerMinSlowerPctHost = 10;
inline constexpr double kStragglerMinSlowerPctGpu = 1;
// The bound for the backend named BACKEND ("nccl", "mpi").
double straggler_min_slower_pct(const std::string& backend);

// How often each rank was a half's slowest rank, by MIN_SLOWER_PCT, over ROWS. Rows of a rooted
// collective (reduce, broadcast, gather, scatter) are not counted: their root waits for the
// others by design (on 4 x H100 the root of reduce and gather was 14 to 36% above the median
// rank at 1 KiB and 256 KiB on healthy GPUs).
struct SlowestTally {
  std::vector<int> slowest;  // index = rank
  int timings = 0;           // halves counted
  double min_slower_pct = 0;  // the bound they were counted by
};
SlowestTally slowest_tally(const std::vector<ResultRow>& rows, double min_slower_pct);

// A rank that was the slowest (so) in at least kConsistentShare of at least kConsistentMinTimings
// halves, in a job of at least 2 ranks: nullopt otherwise. By chance alone, 2 ranks and 16 halves
// reach 75% with a probability of 4%, 4 ranks with less than 1e-5.
inline constexpr double kConsistentShare = 0.75;
inline constexpr int kConsistentMinTimings = 4;
std::optional<int> consistent_straggler(const SlowestTally& tally);

// The finding printed after a table: "rank 2 (host h) was the slowest rank, 1% or more above
// the median rank, in 30 of 32 timings (94%): a consistent straggler ..."; "" when there is none.
std::string straggler_finding(const SlowestTally& tally, const std::vector<std::string>& hosts_by_rank);

}  // namespace commsweep::report
