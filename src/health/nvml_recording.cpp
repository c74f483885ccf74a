#include "health/nvml_recording.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/gpu_reader.hpp"

namespace commsweep::health {
namespace {

using nlohmann::json;

// The cumulative counters, which rise past the last sample, then the gauges.
constexpr std::array<const char*, 6> kCounters = {"energy_mj", "reference_us", "violation_ns.power",
                                                  "violation_ns.thermal", "violation_ns.sync_boost",
                                                  "violation_ns.board_limit"};
constexpr std::array<const char*, 7> kGauges = {"sm_mhz", "mem_mhz", "max_sm_mhz", "temperature_c",
                                                "power_mw", "power_limit_mw", "clock_event_reasons"};

// nvmlNvlinkVersion_t's last value (NVML_NVLINK_VERSION_5_0).
constexpr std::uint64_t kMaxNvlinkVersion = 7;

using Sample = std::map<std::string, std::uint64_t>;  // key -> value; absent: Not Supported

// The GPU's NVLinks, which do not change from sample to sample (a link trains at boot): what
// the health snapshots read (health/gpu_reader.hpp). Each left out answers Not Supported.
struct NvLinks {
  std::optional<std::vector<std::uint64_t>> state;    // nvmlEnableState_t per link (1: active)
  std::optional<std::vector<std::uint64_t>> version;  // nvmlNvlinkVersion_t per link
  std::map<unsigned, std::uint64_t> fields;           // nvml_field id -> value
};

struct Gpu {
  std::string name;
  std::vector<Sample> samples;
  NvLinks nvlinks;
  std::size_t at = 0;             // the sample answering now
  std::set<std::string> answered;  // the calls it answered
};

class ReplayNvml final : public UnsupportedNvml {
 public:
  explicit ReplayNvml(std::vector<Gpu> gpus) : gpus_(std::move(gpus)) {}

  std::string unavailable() const override { return ""; }
  std::string error_string(int rc) const override {
    return rc == nvml_rc::kNotSupported ? "Not Supported (not in the recording)" : "NVML error " + std::to_string(rc);
  }
  int device_count(unsigned* n) override { *n = static_cast<unsigned>(gpus_.size()); return 0; }
  int name(unsigned gpu, std::string* s) override {
    if (gpu >= gpus_.size()) return nvml_rc::kInvalidArgument;
    *s = gpus_[gpu].name;
    return 0;
  }
  int temperature(unsigned gpu, unsigned* c) override { return gauge(gpu, "temperature", {{"temperature_c", c}}); }
  int clock_event_reasons(unsigned gpu, std::uint64_t* r) override {
    const Sample* s = next(gpu, "clock_event_reasons");
    return s ? value(*s, "clock_event_reasons", r) : nvml_rc::kInvalidArgument;
  }
  int clocks(unsigned gpu, unsigned* sm, unsigned* mem) override {
    return gauge(gpu, "clocks", {{"sm_mhz", sm}, {"mem_mhz", mem}});
  }
  int max_sm_clock(unsigned gpu, unsigned* mhz) override { return gauge(gpu, "max_sm_clock", {{"max_sm_mhz", mhz}}); }
  int power(unsigned gpu, unsigned* usage, unsigned* limit) override {
    return gauge(gpu, "power", {{"power_mw", usage}, {"power_limit_mw", limit}});
  }
  int total_energy(unsigned gpu, std::uint64_t* mj) override {
    const Sample* s = next(gpu, "total_energy");
    return s ? value(*s, "energy_mj", mj) : nvml_rc::kInvalidArgument;
  }
  int violation_time(unsigned gpu, PerfPolicy policy, std::uint64_t* reference_us, std::uint64_t* ns) override {
    static const std::array<const char*, 4> keys = {"violation_ns.power", "violation_ns.thermal",
                                                    "violation_ns.sync_boost", "violation_ns.board_limit"};
    const std::string key = keys.at(static_cast<std::size_t>(policy));
    const Sample* s = next(gpu, key);
    if (!s) return nvml_rc::kInvalidArgument;
    const int rc = value(*s, key, ns);
    if (rc != 0) return rc;
    return value(*s, "reference_us", reference_us);
  }
  // The NVLink calls answer from the GPU's own keys and move no sample: the health snapshots
  // read them, and a GPU's links do not change between its window reads.
  int nvlink_state(unsigned gpu, unsigned link, bool* active) override {
    std::uint64_t v = 0;
    const int rc = per_link(gpu, link, &NvLinks::state, &v);
    *active = v == 1;
    return rc;
  }
  int nvlink_version(unsigned gpu, unsigned link, unsigned* version) override {
    std::uint64_t v = 0;
    const int rc = per_link(gpu, link, &NvLinks::version, &v);
    *version = static_cast<unsigned>(v);
    return rc;
  }
  int field_value(unsigned gpu, unsigned field, std::int64_t* value) override {
    if (gpu >= gpus_.size()) return nvml_rc::kInvalidArgument;
    const auto& fields = gpus_[gpu].nvlinks.fields;
    const auto it = fields.find(field);
    if (it == fields.end()) return nvml_rc::kNotSupported;
    *value = static_cast<std::int64_t>(it->second);
    return 0;
  }

 private:
  // The sample that answers CALL on GPU: the current one, or the next where CALL was answered.
  const Sample* next(unsigned gpu, const std::string& call) {
    if (gpu >= gpus_.size()) return nullptr;
    Gpu& g = gpus_[gpu];
    if (!g.answered.insert(call).second) {
      ++g.at;
      g.answered = {call};
    }
    at_ = sample_at(g, g.at);
    return &at_;
  }
  // Sample K, extended past the last: counters rise by the last step, gauges stay.
  static Sample sample_at(const Gpu& g, std::size_t k) {
    const std::size_t last = g.samples.size() - 1;
    if (k <= last) return g.samples[k];
    Sample s = g.samples[last];
    if (last == 0) return s;
    const Sample& before = g.samples[last - 1];
    for (const char* c : kCounters) {
      const auto a = before.find(c);
      const auto b = s.find(c);
      if (a == before.end() || b == s.end() || b->second < a->second) continue;
      b->second += (b->second - a->second) * (k - last);
    }
    return s;
  }
  // LINK's value in the GPU's per-link list: Not Supported without the list, an invalid
  // argument past its end (NVML's answer for a link the GPU does not have).
  int per_link(unsigned gpu, unsigned link, std::optional<std::vector<std::uint64_t>> NvLinks::*list,
               std::uint64_t* out) const {
    if (gpu >= gpus_.size()) return nvml_rc::kInvalidArgument;
    const auto& values = gpus_[gpu].nvlinks.*list;
    if (!values) return nvml_rc::kNotSupported;
    if (link >= values->size()) return nvml_rc::kInvalidArgument;
    *out = (*values)[link];
    return 0;
  }
  template <typename T>
  static int value(const Sample& s, const std::string& key, T* out) {
    const auto it = s.find(key);
    if (it == s.end()) return nvml_rc::kNotSupported;
    *out = static_cast<T>(it->second);
    return 0;
  }
  int gauge(unsigned gpu, const std::string& call, std::initializer_list<std::pair<const char*, unsigned*>> outs) {
    const Sample* s = next(gpu, call);
    if (!s) return nvml_rc::kInvalidArgument;
    for (const auto& [key, out] : outs)
      if (const int rc = value(*s, key, out); rc != 0) return rc;
    return 0;
  }

  std::vector<Gpu> gpus_;
  Sample at_;
};

std::uint64_t count_in(const json& j, const std::string& where) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
    throw std::runtime_error(where + ": not a whole number >= 0 (NVML's unit)");
  return j.get<std::uint64_t>();
}

Sample sample_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + ": not an object");
  Sample s;
  for (const auto& [key, v] : j.items()) {
    if (key == "violation_ns") {
      if (!v.is_object()) throw std::runtime_error(where + ".violation_ns: not an object");
      for (const auto& [policy, ns] : v.items()) {
        const std::string full = "violation_ns." + policy;
        if (std::find(kCounters.begin(), kCounters.end(), full) == kCounters.end())
          throw std::runtime_error(where + ".violation_ns." + policy +
                                   ": unknown (power, thermal, sync_boost, board_limit)");
        s[full] = count_in(ns, where + "." + full);
      }
      continue;
    }
    const bool known = std::find(kCounters.begin(), kCounters.end(), key) != kCounters.end() ||
                       std::find(kGauges.begin(), kGauges.end(), key) != kGauges.end();
    if (!known) throw std::runtime_error(where + "." + key + ": unknown key");
    s[key] = count_in(v, where + "." + key);
  }
  return s;
}

// A per-link list V (at AT), each value at most MAX.
std::vector<std::uint64_t> links_in(const json& v, std::uint64_t max, const std::string& at) {
  if (!v.is_array() || v.empty() || v.size() > kMaxNvLinks)
    throw std::runtime_error(at + ": not an array of 1 to " + std::to_string(kMaxNvLinks) + " links");
  std::vector<std::uint64_t> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    out.push_back(count_in(v[k], at + "[" + std::to_string(k) + "]"));
    if (out.back() > max)
      throw std::runtime_error(at + "[" + std::to_string(k) + "]: above " + std::to_string(max) + " (NVML's enum)");
  }
  return out;
}

// The NVLink keys of G, a GPU's object at WHERE; every other key but its name and samples is
// wrong.
NvLinks nvlinks_from(const json& g, const std::string& where) {
  NvLinks n;
  for (const auto& [key, v] : g.items()) {
    if (key == "name" || key == "samples") continue;
    const std::string at = where + "." + key;
    if (key == "nvlink_state") n.state = links_in(v, 1, at);
    else if (key == "nvlink_version") n.version = links_in(v, kMaxNvlinkVersion, at);
    else if (key == "nvlink_speed_mbps") n.fields[nvml_field::kNvLinkSpeedMbpsCommon] = count_in(v, at);
    else if (key == "nvlink_link_count") n.fields[nvml_field::kNvLinkLinkCount] = count_in(v, at);
    else throw std::runtime_error(at + ": unknown key");
  }
  if (n.version && (!n.state || n.version->size() != n.state->size()))
    throw std::runtime_error(where + ".nvlink_version: not one per link of nvlink_state");
  return n;
}

}  // namespace

std::unique_ptr<NvmlApi> replay_nvml(const std::string& file, const std::string& named) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(named + ": cannot read " + file);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(named + ": not JSON: " + e.what());
  }
  try {
    if (!doc.is_object() || doc.value("format", "") != kNvmlRecordingFormat)
      throw std::runtime_error(std::string("\"format\" is not \"") + kNvmlRecordingFormat + "\"");
    if (!doc.contains("gpus") || !doc.at("gpus").is_array() || doc.at("gpus").empty())
      throw std::runtime_error("\"gpus\": not a non-empty array");
    std::vector<Gpu> gpus;
    for (std::size_t i = 0; i < doc.at("gpus").size(); ++i) {
      const json& g = doc.at("gpus")[i];
      const std::string where = "gpus[" + std::to_string(i) + "]";
      if (!g.is_object() || !g.contains("samples") || !g.at("samples").is_array() || g.at("samples").empty())
        throw std::runtime_error(where + ".samples: not a non-empty array");
      Gpu gpu;
      gpu.name = g.value("name", "recorded GPU");
      gpu.nvlinks = nvlinks_from(g, where);
      for (std::size_t k = 0; k < g.at("samples").size(); ++k)
        gpu.samples.push_back(sample_from(g.at("samples")[k], where + ".samples[" + std::to_string(k) + "]"));
      gpus.push_back(std::move(gpu));
    }
    return std::make_unique<ReplayNvml>(std::move(gpus));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(named + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(named + ": " + e.what());
  }
}

}  // namespace commsweep::health
