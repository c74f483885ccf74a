#include "regress/baseline_json.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>

#include "report/json.hpp"

namespace commsweep::regress {
namespace {

using nlohmann::json;

// A JSON object with its path in the document, so that every error names the field.
class Field {
 public:
  Field(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  Field at(const std::string& name) const {
    if (!j_.is_object()) fail(path_, "is not an object");
    const std::string p = path_.empty() ? name : path_ + "." + name;
    if (!j_.contains(name)) fail(p, "missing");
    return Field(j_.at(name), p);
  }
  Field at(std::size_t i) const { return Field(j_.at(i), path_ + "[" + std::to_string(i) + "]"); }
  bool has(const std::string& name) const { return j_.is_object() && j_.contains(name); }
  std::size_t size() const {
    if (!j_.is_array()) fail(path_, "is not an array");
    return j_.size();
  }
  template <typename T>
  T get() const {
    try {
      return j_.get<T>();
    } catch (const json::exception&) {
      fail(path_, "has the wrong type (" + std::string(j_.type_name()) + ")");
    }
  }
  double number() const {
    if (!j_.is_number()) fail(path_, "is not a number");
    return j_.get<double>();
  }
  // A size or a count. get<std::uint64_t>() would turn -8 into 2^64 - 8 without a word.
  std::uint64_t count() const {
    if (!j_.is_number()) fail(path_, "has the wrong type (" + std::string(j_.type_name()) + ")");
    // A document built in memory holds a non-negative int as signed; one parsed, as unsigned.
    if (!j_.is_number_integer() || (!j_.is_number_unsigned() && j_.get<std::int64_t>() < 0)) {
      fail(path_, "is " + j_.dump() + ", not a whole number >= 0");
    }
    return j_.get<std::uint64_t>();
  }
  int positive_int() const {
    const std::uint64_t v = count();
    if (v < 1 || v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      fail(path_, "is not a whole number from 1 to 2^31 - 1");
    }
    return static_cast<int>(v);
  }
  double non_negative() const {
    const double v = number();
    if (v < 0) fail(path_, "is negative");
    return v;
  }

  [[noreturn]] static void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error("field \"" + path + "\" " + what);
  }

 private:
  const json& j_;
  std::string path_;
};

// Collectives keep busbw; EP rows and the matrices a bandwidth (DeepEP's, a pair's GB/s).
bool is_collective_entry(const Key& k) { return !k.is_ep() && !k.is_matrix(); }

json key_json(const Key& k) {
  json j{{"test", k.test}, {"type", k.type}, {"place", k.place}};
  if (k.is_ep()) {
    j["config"] = k.config;
    j["tokens"] = k.size;
  } else if (k.is_matrix()) {  // since issue 43
    j["config"] = k.config;
    j["size_bytes"] = k.size;
  } else {
    j["redop"] = k.redop;
    j["root"] = k.root;
    j["size_bytes"] = k.size;
  }
  return j;
}

Key key_from(const Field& f) {
  Key k;
  k.test = f.at("test").get<std::string>();
  k.type = f.at("type").get<std::string>();
  k.place = f.at("place").get<std::string>();
  if (k.is_ep()) {
    k.config = f.at("config").get<std::string>();
    k.size = f.at("tokens").count();
  } else if (f.has("config")) {  // a matrix's key (Key::is_matrix), whichever workload's
    k.config = f.at("config").get<std::string>();
    k.size = f.at("size_bytes").count();
  } else {
    k.redop = f.at("redop").get<std::string>();
    k.root = f.at("root").get<int>();
    k.size = f.at("size_bytes").count();
  }
  return k;
}

json rules_json(const Rules& r) {
  json floors = json::array();
  for (const auto& f : r.floors) {
    json j{{"test", f.test}, {"from_size_bytes", f.from_size_bytes}, {"min_busbw_gbps", f.min_busbw_gbps}};
    if (!f.type.empty()) j["type"] = f.type;
    floors.push_back(j);
  }
  return json{{"warn_pct", r.warn_pct},
              {"fail_pct", r.fail_pct},
              {"small_message_bytes", r.small_message_bytes},
              {"max_noise_pct", r.max_noise_pct},
              {"latency_noise_floor_pct", r.latency_noise_floor_pct},
              {"tail_fail_pct", r.tail_fail_pct},
              {"tail_min_iterations", r.tail_min_iterations},
              {"floors", floors},
              {"stragglers",
               {{"mad_k", r.stragglers.mad_k},
                {"min_slower_pct", r.stragglers.min_slower_pct},
                {"min_samples_pct", r.stragglers.min_samples_pct}}}};
}

Rules rules_from(const Field& f) {
  Rules r;
  r.warn_pct = f.at("warn_pct").non_negative();
  r.fail_pct = f.at("fail_pct").non_negative();
  if (r.fail_pct < r.warn_pct) Field::fail("rules.fail_pct", "is smaller than rules.warn_pct");
  r.small_message_bytes = f.at("small_message_bytes").count();
  r.max_noise_pct = f.at("max_noise_pct").non_negative();
  // Baselines written before it have none: the default.
  if (f.has("latency_noise_floor_pct")) r.latency_noise_floor_pct = f.at("latency_noise_floor_pct").non_negative();
  if (f.has("tail_fail_pct")) r.tail_fail_pct = f.at("tail_fail_pct").non_negative();  // since issue 26
  if (f.has("tail_min_iterations")) r.tail_min_iterations = f.at("tail_min_iterations").positive_int();
  const Field floors = f.at("floors");
  for (std::size_t i = 0; i < floors.size(); ++i) {
    const Field fl = floors.at(i);
    Floor floor{fl.at("test").get<std::string>(), "", fl.at("from_size_bytes").count(),
                fl.at("min_busbw_gbps").non_negative()};
    if (fl.has("type")) floor.type = fl.at("type").get<std::string>();
    r.floors.push_back(floor);
  }
  const Field s = f.at("stragglers");
  r.stragglers = {s.at("mad_k").non_negative(), s.at("min_slower_pct").non_negative(),
                  s.at("min_samples_pct").non_negative()};
  return r;
}

// A source's recorded setup beside its backend and hosts: these text fields, and ranks and nodes.
const std::pair<const char*, std::string MeasuredSetup::*> kSetupText[] = {
    {"gpus_per_node", &MeasuredSetup::gpus_per_node},
    {"shape", &MeasuredSetup::shape},
    {"buffers", &MeasuredSetup::buffers},
    {"timer", &MeasuredSetup::timer},
    {"matrix_hosts", &MeasuredSetup::matrix_hosts},  // since issue 43: nvlink and pairs files only
    {"matrix_bytes", &MeasuredSetup::matrix_bytes}};

json source_json(const BaselineSource& s) {
  json j{{"file", s.file}, {"started_at", s.started_at}, {"backend", s.backend}, {"git_hash", s.git_hash},
         {"hosts", s.hosts}};
  if (!s.setup.ranks.empty()) j["ranks"] = std::stoi(s.setup.ranks);
  if (!s.setup.nodes.empty()) j["nodes"] = std::stoi(s.setup.nodes);
  for (const auto& [key, field] : kSetupText) {
    if (!(s.setup.*field).empty()) j[key] = s.setup.*field;  // buffers and timer: collectives only
  }
  return j;
}

// A source written before the setup was recorded has the backend, and the ranks and nodes in
// its hosts (one per rank); the rest stays unknown ("").
BaselineSource source_from(const Field& f) {
  BaselineSource s{f.at("file").get<std::string>(), f.at("started_at").get<std::string>(),
                   f.at("backend").get<std::string>(), f.at("git_hash").get<std::string>(),
                   f.at("hosts").get<std::vector<std::string>>(), {}};
  s.setup.backend = s.backend;
  const std::set<std::string> nodes(s.hosts.begin(), s.hosts.end());
  if (f.has("ranks")) {
    s.setup.ranks = std::to_string(f.at("ranks").positive_int());
  } else if (!s.hosts.empty()) {
    s.setup.ranks = std::to_string(s.hosts.size());
  }
  if (f.has("nodes")) {
    s.setup.nodes = std::to_string(f.at("nodes").positive_int());
  } else if (!nodes.empty()) {
    s.setup.nodes = std::to_string(nodes.size());
  }
  for (const auto& [key, field] : kSetupText) {
    if (f.has(key)) s.setup.*field = f.at(key).get<std::string>();
  }
  return s;
}

json provenance_json(const BaselineProvenance& p) {
  json sources = json::array();
  for (const auto& s : p.sources) sources.push_back(source_json(s));
  return json{{"created_at", p.created_at}, {"created_by", p.created_by},
              {"commsweep_version", p.commsweep_version}, {"git_hash", p.git_hash},
              {"note", p.note}, {"sources", sources}};
}

BaselineProvenance provenance_from(const Field& f) {
  BaselineProvenance p;
  p.created_at = f.at("created_at").get<std::string>();
  p.created_by = f.at("created_by").get<std::string>();
  p.commsweep_version = f.at("commsweep_version").get<std::string>();
  p.git_hash = f.at("git_hash").get<std::string>();
  p.note = f.at("note").get<std::string>();
  const Field sources = f.at("sources");
  for (std::size_t i = 0; i < sources.size(); ++i) p.sources.push_back(source_from(sources.at(i)));
  return p;
}

BaselineEntry entry_from(const Field& f) {
  BaselineEntry e;
  e.key = key_from(f);
  e.samples = f.at("samples").positive_int();
  const bool bus = is_collective_entry(e.key);
  e.bandwidth_gbps = f.at(bus ? "busbw_gbps" : "bandwidth_gbps").non_negative();
  e.bandwidth_spread_pct = f.at(bus ? "busbw_spread_pct" : "bandwidth_spread_pct").non_negative();
  e.time_us = f.at("time_us").non_negative();
  e.time_spread_pct = f.at("time_spread_pct").non_negative();
  if (f.has("p99_us")) e.p99_us = f.at("p99_us").non_negative();  // since issue 26
  if (f.has("p99_spread_pct")) e.p99_spread_pct = f.at("p99_spread_pct").non_negative();  // since issue 43
  return e;
}

}  // namespace

json to_json(const Baseline& b) {
  json entries = json::array();
  for (const auto& e : b.entries) {
    json j = key_json(e.key);
    const bool bus = is_collective_entry(e.key);
    j["samples"] = e.samples;
    j[bus ? "busbw_gbps" : "bandwidth_gbps"] = e.bandwidth_gbps;
    j[bus ? "busbw_spread_pct" : "bandwidth_spread_pct"] = e.bandwidth_spread_pct;
    j["time_us"] = e.time_us;
    j["time_spread_pct"] = e.time_spread_pct;
    if (e.p99_us > 0) {
      j["p99_us"] = e.p99_us;
      j["p99_spread_pct"] = e.p99_spread_pct;
    }
    entries.push_back(j);
  }
  return json{{"schema", kBaselineSchema}, {"shape", b.shape}, {"mode", b.mode},
              {"provenance", provenance_json(b.provenance)}, {"rules", rules_json(b.rules)},
              {"entries", entries}};
}

Baseline baseline_from_json(const json& doc) {
  const Field root(doc, "");
  const auto schema = root.at("schema").get<std::string>();
  if (schema != kBaselineSchema) {
    throw std::runtime_error("baseline schema \"" + schema + "\" is not the one this commsweep reads (\"" +
                             kBaselineSchema + "\")");
  }
  Baseline b;
  b.shape = root.at("shape").get<std::string>();
  b.mode = root.at("mode").get<std::string>();
  b.provenance = provenance_from(root.at("provenance"));
  b.rules = rules_from(root.at("rules"));
  const Field entries = root.at("entries");
  for (std::size_t i = 0; i < entries.size(); ++i) b.entries.push_back(entry_from(entries.at(i)));
  return b;
}

Baseline read_baseline_file(const std::string& path) {
  const json doc = report::read_json_file(path, "baseline ");
  try {
    return baseline_from_json(doc);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace commsweep::regress
