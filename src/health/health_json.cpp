#include "health/health_json.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace commsweep::health {

using nlohmann::json;

namespace {

// A whole number of type T from a JSON value, or a json::type_error (caught below as a malformed
// document): nlohmann's get<T>() converts a float or an out-of-range number with a cast, which
// is undefined behaviour for a value T cannot hold (found by tests/fuzz/health_counter_fuzz).
template <typename T>
T whole(const json& v) {
  if (v.is_number_unsigned()) {
    const auto x = v.get<std::uint64_t>();
    if (x <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(x);
  } else if (v.is_number_integer()) {
    const auto x = v.get<std::int64_t>();
    if (x >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
        (x < 0 || static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      return static_cast<T>(x);
  }
  throw json::type_error::create(302, "expected a whole number that fits, got " + v.dump(), &v);
}

json counters_json(const std::vector<Counter>& counters) {
  json out = json::object();
  for (const auto& c : counters) {
    json v{{"width_bits", c.width_bits}};
    if (c.value) v["value"] = *c.value;
    if (c.saturated) v["saturated"] = true;
    if (!c.problem.empty()) v["problem"] = c.problem;
    out[c.name] = v;
  }
  return out;
}

std::vector<Counter> counters_from(const json& j) {
  std::vector<Counter> out;
  for (const auto& [name, v] : j.items()) {
    Counter c;
    c.name = name;
    c.width_bits = whole<int>(v.at("width_bits"));
    if (v.contains("value")) c.value = whole<std::uint64_t>(v.at("value"));
    c.saturated = v.value("saturated", false);
    c.problem = v.value("problem", "");
    out.push_back(std::move(c));
  }
  return out;
}

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <typename T>
void get(const json& j, const char* key, std::optional<T>* v) {
  if (!j.contains(key) || j.at(key).is_null()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    *v = whole<T>(j.at(key));
  } else {
    *v = j.at(key).get<T>();
  }
}

// AER counts by name ({"RxErr": 0, ...}), each a whole number.
std::map<std::string, std::uint64_t> counts_from(const json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [name, v] : j.items()) out[name] = whole<std::uint64_t>(v);
  return out;
}

json aer_json(const AerCounts& a) {
  return json{{"correctable", a.correctable}, {"nonfatal", a.nonfatal}, {"fatal", a.fatal},
              {"total_correctable", a.total_correctable}, {"total_nonfatal", a.total_nonfatal},
              {"total_fatal", a.total_fatal}};
}

// The optional NVML fields of a GPU and of an NVLink with their JSON keys: one list, which both
// the writer and the reader walk (a field added here is written and read back alike).
template <typename Gpu, typename Visit>  // Gpu: GpuHealth or const GpuHealth
void each_gpu_optional(Gpu& g, Visit visit) {
  visit("temperature_c", g.temperature_c);
  visit("clock_event_reasons", g.clock_event_reasons);
  visit("pcie_replay", g.pcie_replay);
  visit("ecc_corrected_volatile", g.ecc_corrected);
  visit("ecc_uncorrected_volatile", g.ecc_uncorrected);
  visit("retired_pages_pending", g.retired_pages_pending);
  visit("remap_pending", g.remap_pending);
  visit("remap_failure", g.remap_failure);
  visit("pcie_gen", g.pcie_gen);
  visit("pcie_max_gen", g.pcie_max_gen);
  visit("pcie_width", g.pcie_width);
  visit("pcie_max_width", g.pcie_max_width);
  visit("nvlink_version", g.nvlink_version);
  visit("nvlink_speed_mbps", g.nvlink_speed_mbps);
  visit("nvlink_link_count", g.nvlink_link_count);
}
template <typename Link, typename Visit>  // Link: NvLink or const NvLink
void each_link_optional(Link& l, Visit visit) {
  visit("replay", l.replay);
  visit("recovery", l.recovery);
  visit("crc_flit", l.crc_flit);
  visit("crc_data", l.crc_data);
}

json gpu_json(const GpuHealth& g) {
  json j{{"index", g.index}, {"name", g.name}, {"pci_bus_id", g.pci_bus_id}, {"unread", g.unread}};
  each_gpu_optional(g, [&](const char* key, const auto& v) { put(j, key, v); });
  json links = json::array();
  for (const auto& l : g.nvlinks) {
    json lj{{"link", l.link}, {"active", l.active}};
    each_link_optional(l, [&](const char* key, const auto& v) { put(lj, key, v); });
    links.push_back(lj);
  }
  j["nvlinks"] = links;
  return j;
}

GpuHealth gpu_from(const json& j) {
  GpuHealth g;
  g.index = whole<int>(j.at("index"));
  g.name = j.at("name").get<std::string>();
  g.pci_bus_id = j.at("pci_bus_id").get<std::string>();
  g.unread = j.value("unread", std::vector<std::string>{});
  each_gpu_optional(g, [&](const char* key, auto& v) { get(j, key, &v); });
  for (const auto& lj : j.at("nvlinks")) {
    NvLink l;
    l.link = whole<int>(lj.at("link"));
    l.active = lj.at("active").get<bool>();
    each_link_optional(l, [&](const char* key, auto& v) { get(lj, key, &v); });
    g.nvlinks.push_back(l);
  }
  return g;
}

}  // namespace

json to_json(const Snapshot& s) {
  json ports = json::array();
  for (const auto& p : s.ports)
    ports.push_back(json{{"device", p.device}, {"port", p.port}, {"pci_address", p.pci_address},
                         {"nic_model", p.nic_model}, {"state", p.state}, {"phys_state", p.phys_state},
                         {"link_layer", p.link_layer},
                         {"rate", p.rate}, {"speed_gbps", p.speed_gbps}, {"width", p.width},
                         {"counters", counters_json(p.counters)}, {"hw_counters", counters_json(p.hw_counters)},
                         {"unread", p.unread}});
  json pcie = json::array();
  for (const auto& l : s.pcie) {
    json lj{{"address", l.address}, {"role", l.role}, {"current_link_speed", l.current_speed},
            {"max_link_speed", l.max_speed}, {"current_link_width", l.current_width},
            {"max_link_width", l.max_width}, {"unread", l.unread}};
    if (l.aer) lj["aer"] = aer_json(*l.aer);
    pcie.push_back(lj);
  }
  json gpus = json::array();
  for (const auto& g : s.gpus) gpus.push_back(gpu_json(g));
  json xids = json::array();
  for (const auto& x : s.xids) xids.push_back(json{{"gpu", x.gpu}, {"xid", x.xid}});
  return json{{"host", s.host}, {"label", s.label}, {"taken_at", s.taken_at}, {"ports", ports},
              {"pcie", pcie}, {"gpus", gpus}, {"xids", xids}, {"nvml_note", s.nvml_note},
              {"unread", s.unread}};
}

Snapshot snapshot_from_json(const json& j) {
  try {
    Snapshot s;
    s.host = j.at("host").get<std::string>();
    s.label = j.at("label").get<std::string>();
    s.taken_at = j.at("taken_at").get<double>();
    for (const auto& pj : j.at("ports")) {
      PortHealth p;
      p.device = pj.at("device").get<std::string>();
      p.port = whole<int>(pj.at("port"));
      p.pci_address = pj.at("pci_address").get<std::string>();
      p.nic_model = pj.value("nic_model", "");  // absent in files written before it was read
      p.state = pj.at("state").get<std::string>();
      p.phys_state = pj.at("phys_state").get<std::string>();
      p.link_layer = pj.at("link_layer").get<std::string>();
      p.rate = pj.at("rate").get<std::string>();
      p.speed_gbps = pj.at("speed_gbps").get<double>();
      p.width = whole<int>(pj.at("width"));
      p.counters = counters_from(pj.at("counters"));
      p.hw_counters = counters_from(pj.at("hw_counters"));
      p.unread = pj.at("unread").get<std::vector<std::string>>();
      s.ports.push_back(std::move(p));
    }
    for (const auto& lj : j.at("pcie")) {
      PcieLink l;
      l.address = lj.at("address").get<std::string>();
      l.role = lj.at("role").get<std::string>();
      l.current_speed = lj.at("current_link_speed").get<std::string>();
      l.max_speed = lj.at("max_link_speed").get<std::string>();
      l.current_width = whole<int>(lj.at("current_link_width"));
      l.max_width = whole<int>(lj.at("max_link_width"));
      l.unread = lj.at("unread").get<std::vector<std::string>>();
      if (lj.contains("aer")) {
        const auto& a = lj.at("aer");
        AerCounts aer;
        aer.correctable = counts_from(a.at("correctable"));
        aer.nonfatal = counts_from(a.at("nonfatal"));
        aer.fatal = counts_from(a.at("fatal"));
        aer.total_correctable = whole<std::uint64_t>(a.at("total_correctable"));
        aer.total_nonfatal = whole<std::uint64_t>(a.at("total_nonfatal"));
        aer.total_fatal = whole<std::uint64_t>(a.at("total_fatal"));
        l.aer = std::move(aer);
      }
      s.pcie.push_back(std::move(l));
    }
    for (const auto& gj : j.at("gpus")) s.gpus.push_back(gpu_from(gj));
    for (const auto& xj : j.at("xids")) s.xids.push_back(XidEvent{whole<int>(xj.at("gpu")), whole<std::uint64_t>(xj.at("xid"))});
    s.nvml_note = j.at("nvml_note").get<std::string>();
    s.unread = j.at("unread").get<std::vector<std::string>>();
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed health snapshot: ") + e.what());
  }
}

json to_json(const Finding& f) {
  json j{{"severity", to_string(f.severity)}, {"host", f.host}, {"component", f.component},
         {"counter", f.counter}, {"detail", f.detail}};
  if (f.delta) j["delta"] = *f.delta;
  if (f.persistent) j["persistent"] = true;
  if (!f.rule.empty()) {
    j["rule"] = f.rule;
    j["class"] = class_name(f.cls);
    j["limit"] = f.limit;
  }
  if (f.rate) j["rate_per_s"] = *f.rate;
  return j;
}

RuleClass class_from_name(const std::string& name) {
  for (RuleClass c : {RuleClass::RdmaPort, RuleClass::RdmaHw, RuleClass::Pcie, RuleClass::Gpu, RuleClass::NvLink})
    if (class_name(c) == name) return c;
  throw std::runtime_error("health finding class \"" + name + "\" is not one of the rule classes");
}

Severity severity_from_string(const std::string& s) {
  if (s == "FAIL") return Severity::Fail;
  if (s == "WARN") return Severity::Warn;
  if (s == "INFO") return Severity::Info;
  throw std::runtime_error("health finding severity \"" + s + "\" is not FAIL, WARN or INFO");
}

Finding finding_from_json(const json& j) {
  Finding f;
  f.severity = severity_from_string(j.at("severity").get<std::string>());
  f.host = j.at("host").get<std::string>();
  f.component = j.at("component").get<std::string>();
  f.counter = j.at("counter").get<std::string>();
  f.detail = j.at("detail").get<std::string>();
  if (j.contains("delta")) f.delta = whole<std::uint64_t>(j.at("delta"));
  f.persistent = j.value("persistent", false);
  // Files written before the rule table name no rule: their class from the component.
  f.rule = j.value("rule", "");
  f.cls = j.contains("class") ? class_from_name(j.at("class").get<std::string>()) : class_of_component(f.component);
  f.limit = j.value("limit", "");
  if (j.contains("rate_per_s")) f.rate = j.at("rate_per_s").get<double>();
  return f;
}

}  // namespace commsweep::health
