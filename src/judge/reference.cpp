#include "judge/reference.hpp"

#include <algorithm>
#include <cmath>

#include "core/median.hpp"

namespace commsweep::judge {

// Both compare the value with the threshold (FRACTION x REFERENCE), the figure a report prints
// as "slow below"; the ratio is for the reader.
Against below(double value, double reference, double fraction) {
  Against a;
  if (reference <= 0) return a;
  a.ratio = value / reference;
  a.slow = value < fraction * reference;
  return a;
}

Against above(double value, double reference, double over) {
  Against a;
  if (reference <= 0) return a;
  a.ratio = value / reference;
  a.slow = value > over * reference;
  return a;
}

std::optional<Candidate> top_third(std::vector<Candidate> candidates) {
  if (candidates.empty()) return std::nullopt;
  const auto nth = candidates.begin() + static_cast<long>((candidates.size() + 2) / 3 - 1);
  // Higher first; among equal values the lower index.
  std::nth_element(candidates.begin(), nth, candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.value > y.value || (x.value == y.value && x.index < y.index);
  });
  return *nth;
}

std::vector<std::pair<int, double>> outliers_above(const std::vector<double>& values, double mad_k, double min_above_pct) {
  std::vector<std::pair<int, double>> out;
  if (values.size() < 3) return out;
  const double m = median(values);
  if (m <= 0) return out;
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - m));
  const double mad = median(deviations);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double above_pct = (values[i] - m) / m * 100;
    if (values[i] > m + mad_k * mad && above_pct > min_above_pct) out.emplace_back(static_cast<int>(i), above_pct);
  }
  return out;
}

std::vector<std::size_t> most_named(const std::vector<int>& counts) {
  std::vector<std::size_t> out;
  if (counts.empty()) return out;
  const auto [fewest, most] = std::minmax_element(counts.begin(), counts.end());
  if (*most < 2 || *fewest == *most) return out;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] == *most) out.push_back(i);
  return out;
}

}  // namespace commsweep::judge
