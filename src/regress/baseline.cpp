#include "regress/baseline.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace commsweep::regress {

std::vector<BaselineEntry> baseline_entries(const std::vector<report::Results>& runs) {
  std::map<Key, Observation> all;
  for (const auto& run : runs) {
    for (auto& [key, o] : observe(run)) {
      auto& a = all[key];
      a.key = key;
      a.bandwidth_gbps.insert(a.bandwidth_gbps.end(), o.bandwidth_gbps.begin(), o.bandwidth_gbps.end());
      a.time_us.insert(a.time_us.end(), o.time_us.begin(), o.time_us.end());
      a.within_spread_pct.insert(a.within_spread_pct.end(), o.within_spread_pct.begin(), o.within_spread_pct.end());
      a.p99_us.insert(a.p99_us.end(), o.p99_us.begin(), o.p99_us.end());
    }
  }
  std::vector<BaselineEntry> entries;
  for (const auto& [key, o] : all) {
    // The run-to-run spread over the samples, and at least how far the relation of the row's two
    // halves moved between them: the spread of their ratio (1 + halves apart), not its size, which
    // a systematic difference sets (one rank: in-place moves nothing, out-of-place copies; a
    // 10x ratio every run is no noise).
    std::vector<double> ratios;
    for (double w : o.within_spread_pct) ratios.push_back(1.0 + w / 100.0);
    const double within = spread_pct(ratios);
    entries.push_back({key, static_cast<int>(o.time_us.size()), median(o.bandwidth_gbps),
                       std::max(spread_pct(o.bandwidth_gbps), within), median(o.time_us),
                       std::max(spread_pct(o.time_us), within), median(o.p99_us), spread_pct(o.p99_us)});
  }
  return entries;
}

std::string shape_of(const report::Provenance& p) {
  const int ranks = p.ranks > 0 ? p.ranks : static_cast<int>(p.hosts.size());
  std::string gpu = "cpu";
  if (p.backend != "mpi" && !p.gpus.empty()) {
    // The word after the vendor: "NVIDIA H200" -> "h200", "NVIDIA H100 80GB HBM3" -> "h100".
    const std::string& name = p.gpus.front().name;
    std::string word;
    for (std::size_t i = name.find(' '); i != std::string::npos && i + 1 < name.size(); ++i) {
      const char c = name[i + 1];
      if (c == ' ') break;
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (!word.empty()) gpu = word;
  }
  return gpu + "x" + std::to_string(ranks);
}

}  // namespace commsweep::regress
