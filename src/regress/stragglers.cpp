#include "regress/stragglers.hpp"

#include "judge/reference.hpp"
#include "report/gpu_findings.hpp"

namespace commsweep::regress {

// The one judge's outlier rule (judge/reference.hpp), with the baseline's limits.
std::vector<std::pair<int, double>> outlier_ranks(const std::vector<double>& times,
                                                  const StragglerRules& rules) {
  return judge::outliers_above(times, rules.mad_k, rules.min_slower_pct);
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
