#include "report/iteration_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace commsweep::report {

double nearest_rank(const std::vector<double>& sorted, int percentile) {
  if (sorted.empty()) return 0;
  const long n = static_cast<long>(sorted.size());
  if (percentile == 50) return sorted[static_cast<std::size_t>(n / 2)];
  const long index = std::min(n - 1, (n * percentile + 99) / 100 - 1);
  return sorted[static_cast<std::size_t>(std::max(0L, index))];
}

IterationStats iteration_stats(const std::vector<std::vector<double>>& rank_times) {
  IterationStats s;
  if (rank_times.empty() || rank_times.front().empty()) return s;
  const std::size_t iters = rank_times.front().size();
  s.times_us.assign(iters, 0.0);
  for (const auto& rank : rank_times) {
    s.rank_max_us.push_back(rank.empty() ? 0.0 : *std::max_element(rank.begin(), rank.end()));
    for (std::size_t i = 0; i < iters && i < rank.size(); ++i) s.times_us[i] = std::max(s.times_us[i], rank[i]);
  }
  std::vector<double> sorted = s.times_us;
  std::sort(sorted.begin(), sorted.end());
  s.min_us = sorted.front();
  s.max_us = sorted.back();
  s.p50_us = nearest_rank(sorted, 50);
  s.p95_us = nearest_rank(sorted, 95);
  s.p99_us = nearest_rank(sorted, 99);
  double sum = 0;
  for (double t : sorted) sum += t;
  s.avg_us = sum / static_cast<double>(iters);
  double squares = 0;
  for (double t : sorted) squares += (t - s.avg_us) * (t - s.avg_us);
  s.stdev_us = std::sqrt(squares / static_cast<double>(iters));  // population, as nccl-tests
  s.cv_pct = s.avg_us > 0 ? s.stdev_us / s.avg_us * 100.0 : 0.0;
  s.first_us = s.times_us.front();
  for (double t : s.times_us) s.spikes += t > kSpikeFactor * s.p50_us ? 1 : 0;
  if (rank_times.size() * iters <= kMaxKeptRankTimes) s.per_process_max_times_us = rank_times;
  return s;
}

double straggler_min_slower_pct(const std::string& backend) {
  return backend == "nccl" ? kStragglerMinSlowerPctGpu : kStragglerMinSlowerPctHost;
}

SlowestTally slowest_tally(const std::vector<ResultRow>& rows, double min_slower_pct) {
  SlowestTally tally;
  tally.min_slower_pct = min_slower_pct;
  for (const auto& row : rows) {
    if (row.root >= 0) continue;  // a rooted collective: its root waits by design
    for (const Timing* t : {&row.out_of_place, &row.in_place}) {
      if (t->rank_time_us.size() < 2) continue;  // one rank, or a row without per-rank detail
      if (tally.slowest.size() < t->rank_time_us.size()) tally.slowest.resize(t->rank_time_us.size(), 0);
      ++tally.timings;
      std::vector<double> sorted = t->rank_time_us;
      std::sort(sorted.begin(), sorted.end());
      // The lower median: with two ranks the other rank (the upper one would be the slowest
      // itself, and no rank could ever stand out).
      const double median = sorted[(sorted.size() - 1) / 2];
      if (t->slowest_time_us < median * (1 + min_slower_pct / 100)) continue;
      ++tally.slowest.at(static_cast<std::size_t>(t->slowest_rank));
    }
  }
  return tally;
}

std::optional<int> consistent_straggler(const SlowestTally& tally) {
  if (tally.slowest.size() < 2 || tally.timings < kConsistentMinTimings) return std::nullopt;
  const auto most = std::max_element(tally.slowest.begin(), tally.slowest.end());
  if (*most < kConsistentShare * tally.timings) return std::nullopt;
  return static_cast<int>(most - tally.slowest.begin());
}

std::string straggler_finding(const SlowestTally& tally, const std::vector<std::string>& hosts_by_rank) {
  const auto rank = consistent_straggler(tally);
  if (!rank) return "";
  const auto r = static_cast<std::size_t>(*rank);
  const int times = tally.slowest[r];
  char line[512];
  std::snprintf(line, sizeof(line),
                "Straggler: rank %d (host %s) was the slowest rank, %.0f%% or more above the median rank, in %d of "
                "%d timings (%.0f%%): a consistent straggler, not noise (at least %.0f%% of at least %d timings)",
                *rank, r < hosts_by_rank.size() ? hosts_by_rank[r].c_str() : "?", tally.min_slower_pct, times,
                tally.timings, 100.0 * times / tally.timings, kConsistentShare * 100, kConsistentMinTimings);
  return line;
}

}  // namespace commsweep::report
