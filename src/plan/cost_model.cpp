#include "plan/cost_model.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

namespace commsweep::plan {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Per round, the slowest rail's time per exchange (us): the round waits for it.
std::map<int, double> slowest_rail_per_round(const nlohmann::json& doc) {
  std::map<int, double> slowest;
  const auto pairs = doc.find("pairs");
  if (pairs == doc.end() || !pairs->is_array()) return slowest;
  for (const auto& p : *pairs) {
    const int round = p.value("round", -1);
    for (const auto& r : p.value("rails", nlohmann::json::array())) {
      const double t = r.value("time_us", 0.0);
      slowest[round] = std::max(slowest[round], t);
    }
  }
  return slowest;
}

}  // namespace

double exchange_seconds(const CostModel& m, std::uint64_t bytes) {
  return m.latency_us * 1e-6 + static_cast<double>(bytes) / (m.rail_gbps * 1e9);
}

double round_seconds(const CostModel& m, const RoundShape& s) {
  return m.overhead_s + (s.warmup + s.iters + s.check) * exchange_seconds(m, s.bytes);
}

CostModel fit_cost_model(const nlohmann::json& doc, const std::string& source) {
  const std::string schema = doc.value("schema", "");
  if (schema.rfind("commsweep.pairs/", 0) != 0) {
    throw std::invalid_argument(source + ": schema '" + schema + "' is not commsweep.pairs/N");
  }
  const auto& settings = doc.at("settings");
  const double bytes = settings.value("bytes", 0.0);
  const int exchanges = settings.value("warmup", 0) + settings.value("iters", 0) + settings.value("check", 0);
  const auto slowest = slowest_rail_per_round(doc);
  std::vector<double> per_exchange_us, overhead_s;
  for (const auto& [round, us] : slowest) per_exchange_us.push_back(us);
  if (per_exchange_us.empty() || bytes <= 0) {
    throw std::invalid_argument(source + ": no measured rail (pairs[].rails[].time_us) to fit a cost model to");
  }
  CostModel m;
  const double t_us = median_of(per_exchange_us);
  // One message size cannot separate latency from bandwidth: the default latency is kept, unless
  // the exchange itself was faster (then latency is taken as a tenth of it).
  m.latency_us = std::min(m.latency_us, t_us / 10);
  m.rail_gbps = bytes / ((t_us - m.latency_us) * 1e3);
  // Wall time per round (schema 2: rounds[].wall_s) less its exchanges: the fixed overhead.
  const auto rounds = doc.value("rounds", nlohmann::json::array());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const auto wall = rounds[r].find("wall_s");
    const auto it = slowest.find(static_cast<int>(r));
    if (wall == rounds[r].end() || !wall->is_number() || it == slowest.end()) continue;
    overhead_s.push_back(std::max(0.0, wall->get<double>() - exchanges * it->second * 1e-6));
  }
  if (!overhead_s.empty()) m.overhead_s = median_of(overhead_s);
  char text[256];
  std::snprintf(text, sizeof text, "fitted to %zu round(s) of %s: %.3g GB/s per rail, %.3g us per exchange, %.3g s per round%s",
                per_exchange_us.size(), source.c_str(), m.rail_gbps, m.latency_us, m.overhead_s,
                overhead_s.empty() ? " (default: the file has no rounds[].wall_s)" : "");
  m.source = text;
  return m;
}

}  // namespace commsweep::plan
