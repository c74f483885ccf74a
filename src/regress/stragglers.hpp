// Stragglers: ranks whose own time is an outlier among the ranks' times of the same sample,
// again and again. A slow GPU, NIC or host shows as the same rank late in many rows.
#pragma once

#include <map>
#include <vector>

#include "regress/compare.hpp"

namespace commsweep::regress {

// Ranks whose time exceeds median + mad_k * MAD and is min_slower_pct above the median (the one
// judge's outlier rule, judge/reference.hpp), in at least min_samples_pct of the samples (rows
// with at least 3 ranks), named with host and GPU.
std::vector<Straggler> find_stragglers(const report::Results& results,
                                       const std::map<Key, Observation>& observed,
                                       const StragglerRules& rules);

// The ranks that are outliers in one sample's per-rank times, with how much slower (percent):
// judge::outliers_above under RULES' limits.
std::vector<std::pair<int, double>> outlier_ranks(const std::vector<double>& rank_time_us,
                                                  const StragglerRules& rules);

}  // namespace commsweep::regress
