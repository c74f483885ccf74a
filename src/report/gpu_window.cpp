#include "report/gpu_window.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace commsweep::report {

using nlohmann::json;

namespace {

std::optional<double> num(const std::optional<unsigned>& v) {
  return v ? std::optional<double>(*v) : std::nullopt;
}

// A cumulative counter's rise, or empty where an end is missing or it went back (a driver
// reload between the reads).
std::optional<double> rise(const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
  if (!a || !b || *b < *a) return std::nullopt;
  return static_cast<double>(*b - *a);
}

}  // namespace

GpuWindow window_between(const GpuSample& start, const GpuSample& end) {
  GpuWindow w;
  w.gpu = static_cast<int>(end.gpu);
  // NVML's own timestamps where it gave them: the violation times are counted against its clock.
  w.window_us = end.reference_us > start.reference_us ? static_cast<double>(end.reference_us - start.reference_us)
                                                      : std::max(0.0, end.host_us - start.host_us);
  w.sm_mhz_start = num(start.sm_mhz);
  w.sm_mhz_end = num(end.sm_mhz);
  w.sm_mhz_max = num(end.max_sm_mhz);
  w.mem_mhz = num(end.mem_mhz);
  w.temperature_c = num(end.temperature_c);
  if (end.power_limit_mw) w.power_limit_w = *end.power_limit_mw / 1e3;
  const auto energy = rise(start.energy_mj, end.energy_mj);
  if (energy && *energy > 0 && w.window_us >= kEnergyMinWindowUs) {
    w.power_w = *energy / w.window_us * 1e3;  // mJ / us = 1e3 W
    w.power_from = "energy";
  } else if (end.power_mw) {
    w.power_w = *end.power_mw / 1e3;
    w.power_from = "sample";
  }
  if (end.power_mw) w.power_end_w = *end.power_mw / 1e3;
  for (int i = 0; i < kThrottles; ++i) {
    std::optional<double> share;
    if (i < kViolationCounters) {
      const auto ns = rise(start.violation_ns[i], end.violation_ns[i]);
      // Clamped: the counter advances in steps, and one step may outlast a short window.
      if (ns && *ns > 0 && w.window_us > 0) share = std::min(1.0, *ns / (w.window_us * 1e3));
    }
    const bool at_end = end.event_reasons && (*end.event_reasons & kThrottleBits[i]) != 0;
    if (share || at_end) w.throttles.push_back({kThrottleNames[i], share});
  }
  return w;
}

const ThrottleShare* throttle_in(const GpuWindow& w, Throttle reason) {
  const char* name = kThrottleNames[static_cast<int>(reason)];
  for (const auto& t : w.throttles)
    if (t.reason == name) return &t;
  return nullptr;
}

// Layout: gpu, window_us, the seven readings (NaN: none), power_from (0 none, 1 energy,
// 2 sample), power_end_w (NaN: none), then per reason: -2 not active, -1 active without a
// share, else the share.
std::vector<double> window_numbers(const GpuWindow& w) {
  const double none = std::nan("");
  auto v = [&](const std::optional<double>& x) { return x ? *x : none; };
  std::vector<double> out{static_cast<double>(w.gpu), w.window_us, v(w.sm_mhz_start), v(w.sm_mhz_end),
                          v(w.sm_mhz_max), v(w.mem_mhz), v(w.temperature_c), v(w.power_w), v(w.power_limit_w),
                          w.power_from == "energy" ? 1.0 : w.power_from == "sample" ? 2.0 : 0.0, v(w.power_end_w)};
  for (int i = 0; i < kThrottles; ++i) {
    const ThrottleShare* t = throttle_in(w, static_cast<Throttle>(i));
    out.push_back(!t ? -2.0 : t->share ? *t->share : -1.0);
  }
  return out;
}

GpuWindow window_from_numbers(const std::vector<double>& v, int rank) {
  if (v.size() != kWindowNumbers) throw std::runtime_error("a GPU window of " + std::to_string(v.size()) + " numbers");
  auto o = [&](std::size_t i) { return std::isnan(v[i]) ? std::nullopt : std::optional<double>(v[i]); };
  GpuWindow w;
  w.rank = rank;
  w.gpu = static_cast<int>(v[0]);
  w.window_us = v[1];
  w.sm_mhz_start = o(2), w.sm_mhz_end = o(3), w.sm_mhz_max = o(4), w.mem_mhz = o(5), w.temperature_c = o(6);
  w.power_w = o(7), w.power_limit_w = o(8);
  w.power_from = v[9] == 1.0 ? "energy" : v[9] == 2.0 ? "sample" : "";
  w.power_end_w = o(10);
  for (int i = 0; i < kThrottles; ++i) {
    const double s = v[11 + static_cast<std::size_t>(i)];
    if (s == -2.0) continue;
    w.throttles.push_back({kThrottleNames[i], s < 0 ? std::nullopt : std::optional<double>(s)});
  }
  return w;
}

json gpu_window_json(const GpuWindow& w) {
  auto v = [](const std::optional<double>& x) { return x ? json(*x) : json(nullptr); };
  json throttles = json::array();
  for (const auto& t : w.throttles) throttles.push_back({{"reason", t.reason}, {"share", v(t.share)}});
  return json{{"rank", w.rank},
              {"gpu", w.gpu},
              {"window_us", w.window_us},
              {"sm_mhz_start", v(w.sm_mhz_start)},
              {"sm_mhz_end", v(w.sm_mhz_end)},
              {"sm_mhz_max", v(w.sm_mhz_max)},
              {"mem_mhz", v(w.mem_mhz)},
              {"temperature_c", v(w.temperature_c)},
              {"power_w", v(w.power_w)},
              {"power_from", w.power_from.empty() ? json(nullptr) : json(w.power_from)},
              {"power_end_w", v(w.power_end_w)},
              {"power_limit_w", v(w.power_limit_w)},
              {"throttles", throttles}};
}

GpuWindow gpu_window_from(const json& j) {
  auto v = [&](const char* key) {
    const json& x = j.at(key);
    return x.is_null() ? std::nullopt : std::optional<double>(x.get<double>());
  };
  GpuWindow w;
  w.rank = j.at("rank").get<int>();
  w.gpu = j.at("gpu").get<int>();
  w.window_us = j.at("window_us").get<double>();
  w.sm_mhz_start = v("sm_mhz_start"), w.sm_mhz_end = v("sm_mhz_end"), w.sm_mhz_max = v("sm_mhz_max");
  w.mem_mhz = v("mem_mhz"), w.temperature_c = v("temperature_c"), w.power_w = v("power_w");
  w.power_limit_w = v("power_limit_w");
  if (!j.at("power_from").is_null()) w.power_from = j.at("power_from").get<std::string>();
  // Older files have no end reading.
  if (j.contains("power_end_w") && !j.at("power_end_w").is_null()) w.power_end_w = j.at("power_end_w").get<double>();
  for (const auto& t : j.at("throttles")) {
    const json& s = t.at("share");
    w.throttles.push_back({t.at("reason").get<std::string>(), s.is_null() ? std::nullopt : std::optional<double>(s.get<double>())});
  }
  return w;
}

}  // namespace commsweep::report
