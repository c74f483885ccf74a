#include "regress/stragglers.hpp"

#include <cmath>

#include "report/gpu_findings.hpp"

namespace commsweep::regress {

std::vector<std::pair<int, double>> outlier_ranks(const std::vector<double>& times,
                                                  const StragglerRules& rules) {
  std::vector<std::pair<int, double>> out;
  // With two ranks there is no majority to be an outlier from.
  if (times.size() < 3) return out;
  const double m = median(times);
  if (m <= 0) return out;
  std::vector<double> deviations;
  for (double t : times) deviations.push_back(std::fabs(t - m));
  // MAD: robust to the outlier itself, unlike the standard deviation.
  const double mad = median(deviations);
  for (std::size_t r = 0; r < times.size(); ++r) {
    const double slower = (times[r] - m) / m * 100;
    if (times[r] > m + rules.mad_k * mad && slower > rules.min_slower_pct) {
      out.emplace_back(static_cast<int>(r), slower);
    }
  }
  return out;
}

std::vector<Straggler> find_stragglers(const report::Results& results,
                                       const std::map<Key, Observation>& observed,
                                       const StragglerRules& rules) {
  const auto& prov = results.provenance;
  std::map<int, Straggler> by_rank;
  int samples = 0;
  for (const auto& [key, o] : observed) {
    for (const auto& times : o.rank_time_us) {
      if (times.size() < 3) continue;
      ++samples;
      for (const auto& [rank, slower] : outlier_ranks(times, rules)) {
        auto& s = by_rank[rank];
        s.rank = rank;
        ++s.outlier_samples;
        if (slower > s.worst_slower_pct) {
          s.worst_slower_pct = slower;
          s.worst_at = describe(key);
        }
      }
    }
  }
  std::vector<Straggler> out;
  for (auto& [rank, s] : by_rank) {
    s.samples = samples;
    if (s.outlier_samples * 100.0 < rules.min_samples_pct * samples) continue;
    s.host = rank < static_cast<int>(prov.hosts.size()) ? prov.hosts[rank] : "?";
    s.gpu = "-";
    for (const auto& g : prov.gpus) {
      if (g.rank == rank) s.gpu = g.pci_bus_id;
    }
    s.throttled = report::throttle_during(results.rows, rank);
    out.push_back(s);
  }
  return out;
}

}  // namespace commsweep::regress
