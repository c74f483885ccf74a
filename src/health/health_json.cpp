#include "health/health_json.hpp"

#include <stdexcept>

namespace commsweep::health {

using nlohmann::json;

namespace {

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
    c.width_bits = v.at("width_bits").get<int>();
    if (v.contains("value")) c.value = v.at("value").get<std::uint64_t>();
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
  if (j.contains(key) && !j.at(key).is_null()) *v = j.at(key).get<T>();
}

json aer_json(const AerCounts& a) {
  return json{{"correctable", a.correctable}, {"nonfatal", a.nonfatal}, {"fatal", a.fatal},
              {"total_correctable", a.total_correctable}, {"total_nonfatal", a.total_nonfatal},
              {"total_fatal", a.total_fatal}};
}

json gpu_json(const GpuHealth& g) {
  json j{{"index", g.index}, {"name", g.name}, {"pci_bus_id", g.pci_bus_id}, {"unread", g.unread}};
  put(j, "temperature_c", g.temperature_c);
  put(j, "clock_event_reasons", g.clock_event_reasons);
  put(j, "pcie_replay", g.pcie_replay);
  put(j, "ecc_corrected_volatile", g.ecc_corrected);
  put(j, "ecc_uncorrected_volatile", g.ecc_uncorrected);
  put(j, "retired_pages_pending", g.retired_pages_pending);
  put(j, "remap_pending", g.remap_pending);
  put(j, "remap_failure", g.remap_failure);
  put(j, "pcie_gen", g.pcie_gen);
  put(j, "pcie_max_gen", g.pcie_max_gen);
  put(j, "pcie_width", g.pcie_width);
  put(j, "pcie_max_width", g.pcie_max_width);
  json links = json::array();
  for (const auto& l : g.nvlinks) {
    json lj{{"link", l.link}, {"active", l.active}};
    put(lj, "replay", l.replay);
    put(lj, "recovery", l.recovery);
    put(lj, "crc_flit", l.crc_flit);
    put(lj, "crc_data", l.crc_data);
    links.push_back(lj);
  }
  j["nvlinks"] = links;
  return j;
}

GpuHealth gpu_from(const json& j) {
  GpuHealth g;
  g.index = j.at("index").get<int>();
  g.name = j.at("name").get<std::string>();
  g.pci_bus_id = j.at("pci_bus_id").get<std::string>();
  g.unread = j.value("unread", std::vector<std::string>{});
  get(j, "temperature_c", &g.temperature_c);
  get(j, "clock_event_reasons", &g.clock_event_reasons);
  get(j, "pcie_replay", &g.pcie_replay);
  get(j, "ecc_corrected_volatile", &g.ecc_corrected);
  get(j, "ecc_uncorrected_volatile", &g.ecc_uncorrected);
  get(j, "retired_pages_pending", &g.retired_pages_pending);
  get(j, "remap_pending", &g.remap_pending);
  get(j, "remap_failure", &g.remap_failure);
  get(j, "pcie_gen", &g.pcie_gen);
  get(j, "pcie_max_gen", &g.pcie_max_gen);
  get(j, "pcie_width", &g.pcie_width);
  get(j, "pcie_max_width", &g.pcie_max_width);
  for (const auto& lj : j.at("nvlinks")) {
    NvLink l;
    l.link = lj.at("link").get<int>();
    l.active = lj.at("active").get<bool>();
    get(lj, "replay", &l.replay);
    get(lj, "recovery", &l.recovery);
    get(lj, "crc_flit", &l.crc_flit);
    get(lj, "crc_data", &l.crc_data);
    g.nvlinks.push_back(l);
  }
  return g;
}

}  // namespace

json to_json(const Snapshot& s) {
  json ports = json::array();
  for (const auto& p : s.ports)
    ports.push_back(json{{"device", p.device}, {"port", p.port}, {"pci_address", p.pci_address},
                         {"state", p.state}, {"phys_state", p.phys_state}, {"link_layer", p.link_layer},
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
      p.port = pj.at("port").get<int>();
      p.pci_address = pj.at("pci_address").get<std::string>();
      p.state = pj.at("state").get<std::string>();
      p.phys_state = pj.at("phys_state").get<std::string>();
      p.link_layer = pj.at("link_layer").get<std::string>();
      p.rate = pj.at("rate").get<std::string>();
      p.speed_gbps = pj.at("speed_gbps").get<double>();
      p.width = pj.at("width").get<int>();
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
      l.current_width = lj.at("current_link_width").get<int>();
      l.max_width = lj.at("max_link_width").get<int>();
      l.unread = lj.at("unread").get<std::vector<std::string>>();
      if (lj.contains("aer")) {
        const auto& a = lj.at("aer");
        AerCounts aer;
        aer.correctable = a.at("correctable").get<std::map<std::string, std::uint64_t>>();
        aer.nonfatal = a.at("nonfatal").get<std::map<std::string, std::uint64_t>>();
        aer.fatal = a.at("fatal").get<std::map<std::string, std::uint64_t>>();
        aer.total_correctable = a.at("total_correctable").get<std::uint64_t>();
        aer.total_nonfatal = a.at("total_nonfatal").get<std::uint64_t>();
        aer.total_fatal = a.at("total_fatal").get<std::uint64_t>();
        l.aer = std::move(aer);
      }
      s.pcie.push_back(std::move(l));
    }
    for (const auto& gj : j.at("gpus")) s.gpus.push_back(gpu_from(gj));
    for (const auto& xj : j.at("xids")) s.xids.push_back(XidEvent{xj.at("gpu").get<int>(), xj.at("xid").get<std::uint64_t>()});
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
  return j;
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
  if (j.contains("delta")) f.delta = j.at("delta").get<std::uint64_t>();
  f.persistent = j.value("persistent", false);
  return f;
}

}  // namespace commsweep::health
