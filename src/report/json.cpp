#include "report/json.hpp"

#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/text_file.hpp"
#include "report/iteration_stats.hpp"

namespace commsweep::report {
namespace {

using nlohmann::json;

// A byte count, element count or wrong-element count: a whole number >= 0. nlohmann's
// get<std::uint64_t>() turns -5 into 2^64 - 5, a corrupt file into a plausible figure.
bool is_count(const json& v) {  // a document built in memory holds 0 as signed
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

// v, the value of `key` ("is") or one of its elements ("holds"), as a count.
std::uint64_t checked_count(const json& v, const char* key, const char* relation) {
  if (!is_count(v)) {
    throw std::runtime_error(std::string("\"") + key + "\" " + relation + " " + v.dump() +
                             ", not a whole number >= 0");
  }
  return v.get<std::uint64_t>();
}

std::uint64_t count_at(const json& j, const char* key) { return checked_count(j.at(key), key, "is"); }

std::vector<std::uint64_t> counts_at(const json& j, const char* key) {
  std::vector<std::uint64_t> out;
  for (const json& v : j.at(key)) out.push_back(checked_count(v, key, "holds"));
  return out;
}

// A time or a bandwidth: a number >= 0 (JSON has no NaN or infinity).
double measure_at(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number() || v.get<double>() < 0) {
    throw std::runtime_error(std::string("\"") + key + "\" is " + v.dump() + ", not a number >= 0");
  }
  return v.get<double>();
}

json per_iter_json(const IterationStats& s) {
  json j{{"skipped_iterations", s.skipped_iterations},
         {"min_us", s.min_us},
         {"max_us", s.max_us},
         {"avg_us", s.avg_us},
         {"p50_us", s.p50_us},
         {"p95_us", s.p95_us},
         {"p99_us", s.p99_us},
         {"stdev_us", s.stdev_us},
         {"cv_pct", s.cv_pct},
         {"first_us", s.first_us},
         {"spikes", s.spikes},
         {"spike_factor", kSpikeFactor},
         {"times_us", s.times_us},
         {"per_process_max_times_us", s.per_process_max_times_us},
         {"rank_max_us", s.rank_max_us}};
  if (!s.clock.empty()) j["clock"] = s.clock;
  if (!s.pass.empty()) j["pass"] = s.pass;
  return j;
}

IterationStats per_iter_from(const json& j) {
  IterationStats s;
  s.skipped_iterations = j.at("skipped_iterations").get<int>();
  s.min_us = measure_at(j, "min_us");
  s.max_us = measure_at(j, "max_us");
  s.avg_us = measure_at(j, "avg_us");
  s.p50_us = measure_at(j, "p50_us");
  s.p95_us = measure_at(j, "p95_us");
  s.p99_us = measure_at(j, "p99_us");
  s.stdev_us = measure_at(j, "stdev_us");
  s.cv_pct = measure_at(j, "cv_pct");
  s.first_us = measure_at(j, "first_us");
  s.spikes = static_cast<int>(count_at(j, "spikes"));
  s.times_us = j.at("times_us").get<std::vector<double>>();
  s.per_process_max_times_us = j.at("per_process_max_times_us").get<std::vector<std::vector<double>>>();
  s.rank_max_us = j.at("rank_max_us").get<std::vector<double>>();
  if (j.contains("clock")) s.clock = j.at("clock").get<std::string>();
  if (j.contains("pass")) s.pass = j.at("pass").get<std::string>();
  return s;
}

json nccl_choice_json(const NcclChoice& c) {
  return json{{"algorithm", c.algorithm},
              {"protocol", c.protocol},
              {"channels", c.channels > 0 ? json(c.channels) : json(nullptr)},
              {"source", c.source}};
}

NcclChoice nccl_choice_from(const json& j) {
  NcclChoice c;
  c.algorithm = j.at("algorithm").get<std::string>();
  c.protocol = j.at("protocol").get<std::string>();
  if (!j.at("channels").is_null()) c.channels = static_cast<int>(count_at(j, "channels"));
  c.source = j.at("source").get<std::string>();
  return c;
}

json expected_finding_json(const ExpectedFinding& f) {
  if (f.workload != "collective") {  // ep: its case and the metric judged, the value in its unit
    return json{{"severity", f.severity}, {"workload", f.workload},       {"case", f.case_text},
                {"phase", f.half},        {"metric", f.metric},           {"value", f.busbw_gbps},
                {"expected", f.expected_gbps}, {"of_expected", f.of_expected}, {"floor", f.floor},
                {"rank", f.rank},         {"host", f.host},               {"entry", f.entry},
                {"text", f.text}};
  }
  return json{{"severity", f.severity},     {"test", f.test},         {"size_bytes", f.size_bytes},
              {"half", f.half},             {"busbw_gbps", f.busbw_gbps}, {"expected", f.expected_gbps},
              {"of_expected", f.of_expected}, {"floor", f.floor},     {"rank", f.rank},
              {"host", f.host},             {"entry", f.entry},       {"text", f.text}};
}

ExpectedFinding expected_finding_from(const json& j) {
  ExpectedFinding f;
  f.severity = j.at("severity").get<std::string>();
  if (j.contains("workload")) {
    f.workload = j.at("workload").get<std::string>();
    f.test = f.workload;
    f.case_text = j.at("case").get<std::string>();
    f.half = j.at("phase").get<std::string>();
    f.metric = j.at("metric").get<std::string>();
    f.busbw_gbps = measure_at(j, "value");
  } else {
    f.test = j.at("test").get<std::string>();
    f.size_bytes = count_at(j, "size_bytes");
    f.half = j.at("half").get<std::string>();
    f.busbw_gbps = measure_at(j, "busbw_gbps");
  }
  f.expected_gbps = measure_at(j, "expected");
  f.of_expected = measure_at(j, "of_expected");
  f.floor = measure_at(j, "floor");
  f.rank = j.at("rank").get<int>();
  f.host = j.at("host").get<std::string>();
  f.entry = j.at("entry").get<std::string>();
  f.text = j.at("text").get<std::string>();
  return f;
}

json timing_json(const Timing& t) {
  json j{{"time_us", t.time_us},
         {"algbw_gbps", t.algbw_gbps},
         {"busbw_gbps", t.busbw_gbps},
         {"wrong", t.wrong ? json(*t.wrong) : json(nullptr)},
         {"slowest_rank", t.slowest_rank},
         {"slowest_time_us", t.slowest_time_us},
         {"rank_time_us", t.rank_time_us},
         {"per_iter", t.per_iter ? per_iter_json(*t.per_iter) : json(nullptr)}};
  // Every half a sweep measured says what NCCL chose, or why that is unknown; a timing made
  // elsewhere (read from a file from before issue 26) has no choice and writes none.
  if (!t.nccl.algorithm.empty()) j["nccl"] = nccl_choice_json(t.nccl);
  if (!t.method.empty()) j["method"] = t.method;
  if (!t.gpu_state.empty()) {
    json windows = json::array();
    for (const auto& w : t.gpu_state) windows.push_back(gpu_window_json(w));
    j["gpu_state"] = windows;
  }
  // Written by every run since issue 45 (null where no expectation applies); older files lack both.
  j["expected"] = t.expected_gbps ? json(*t.expected_gbps) : json(nullptr);
  j["of_expected"] = t.expected_gbps && *t.expected_gbps > 0 ? json(t.busbw_gbps / *t.expected_gbps) : json(nullptr);
  return j;
}

Timing timing_from(const json& j) {
  Timing t;
  t.time_us = measure_at(j, "time_us");
  t.algbw_gbps = measure_at(j, "algbw_gbps");
  t.busbw_gbps = measure_at(j, "busbw_gbps");
  if (!j.at("wrong").is_null()) t.wrong = count_at(j, "wrong");
  t.slowest_rank = j.at("slowest_rank").get<int>();
  t.slowest_time_us = j.at("slowest_time_us").get<double>();
  t.rank_time_us = j.at("rank_time_us").get<std::vector<double>>();
  // Both written since issue 26; files from before have neither.
  if (j.contains("per_iter") && !j.at("per_iter").is_null()) {
    try {
      t.per_iter = per_iter_from(j.at("per_iter"));
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("\"per_iter\": ") + e.what());
    }
  }
  if (j.contains("nccl")) t.nccl = nccl_choice_from(j.at("nccl"));
  if (j.contains("method")) t.method = j.at("method").get<std::string>();
  // Written since issue 45 where a GPU was read.
  if (j.contains("gpu_state")) {
    try {
      for (const auto& w : j.at("gpu_state")) t.gpu_state.push_back(gpu_window_from(w));
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("\"gpu_state\": ") + e.what());
    }
  }
  if (j.contains("expected") && !j.at("expected").is_null()) t.expected_gbps = measure_at(j, "expected");
  return t;
}

json ep_phase_json(const EpPhase& p) {
  return json{{"time_us", p.time_us},
              {"bandwidth_gbps", p.bandwidth_gbps},
              {"fabric_bandwidth_gbps", p.fabric_bandwidth_gbps},
              {"wrong", p.wrong ? json(*p.wrong) : json(nullptr)},
              {"slowest_rank", p.slowest_rank},
              {"slowest_time_us", p.slowest_time_us},
              {"rank_time_us", p.rank_time_us},
              {"sms", p.sms > 0 ? json(p.sms) : json(nullptr)},
              {"rank_spread_pct", p.rank_spread_pct},
              {"expected", p.expected ? json{{"metric", p.expected->key}, {"value", p.expected->value},
                                             {"entry", p.expected->entry}}
                                      : json(nullptr)},
              {"of_expected", p.expected ? json(p.expected->of_expected) : json(nullptr)}};
}

EpPhase ep_phase_from(const json& j) {
  EpPhase p;
  p.time_us = measure_at(j, "time_us");
  p.bandwidth_gbps = measure_at(j, "bandwidth_gbps");
  p.fabric_bandwidth_gbps = measure_at(j, "fabric_bandwidth_gbps");
  if (!j.at("wrong").is_null()) p.wrong = count_at(j, "wrong");
  p.slowest_rank = j.at("slowest_rank").get<int>();
  p.slowest_time_us = j.at("slowest_time_us").get<double>();
  p.rank_time_us = j.at("rank_time_us").get<std::vector<double>>();
  // Results written before the SMs were counted have none.
  if (j.contains("sms") && !j.at("sms").is_null()) p.sms = j.at("sms").get<int>();
  if (j.contains("rank_spread_pct")) p.rank_spread_pct = measure_at(j, "rank_spread_pct");
  // Files written before EP had expected figures have neither key.
  if (j.contains("expected") && !j.at("expected").is_null()) {
    const json& e = j.at("expected");
    p.expected = ExpectedValue{e.at("metric").get<std::string>(), measure_at(e, "value"), measure_at(j, "of_expected"),
                               e.at("entry").get<std::string>()};
  }
  return p;
}

json ep_back_to_back_json(const std::optional<EpBackToBack>& b) {
  if (!b) return json(nullptr);
  return json{{"period_us", b->period_us}, {"rank_period_us", b->rank_period_us}, {"pairs", b->pairs}};
}

std::optional<EpBackToBack> ep_back_to_back_from(const json& j) {
  if (!j.contains("back_to_back") || j.at("back_to_back").is_null()) return std::nullopt;
  const json& b = j.at("back_to_back");
  EpBackToBack out;
  out.period_us = measure_at(b, "period_us");
  out.rank_period_us = b.at("rank_period_us").get<std::vector<double>>();
  out.pairs = b.at("pairs").get<int>();
  return out;
}

json ep_row_json(const EpRow& r) {
  json j{{"kind", "ep"},
              {"routing", r.routing},
              {"tokens", r.tokens},
              {"hidden", r.hidden},
              {"topk", r.topk},
              {"experts", r.experts},
              {"dtype", r.dtype},
              {"impl", r.impl},
              {"iters", r.iters},
              {"rank_bytes_deepep", r.rank_bytes_deepep},
              {"rank_bytes_fabric", r.rank_bytes_fabric},
              {"dispatch", ep_phase_json(r.dispatch)},
              {"combine", ep_phase_json(r.combine)},
              {"back_to_back", ep_back_to_back_json(r.back_to_back)},
              {"nccl_path", r.nccl_path}};
  if (!r.gpu_state.empty()) {
    json windows = json::array();
    for (const auto& w : r.gpu_state) windows.push_back(gpu_window_json(w));
    j["gpu_state"] = windows;
  }
  return j;
}

EpRow ep_row_from(const json& j) {
  EpRow r;
  r.routing = j.at("routing").get<std::string>();
  r.tokens = j.at("tokens").get<int>();
  r.hidden = j.at("hidden").get<int>();
  r.topk = j.at("topk").get<int>();
  r.experts = j.at("experts").get<int>();
  r.dtype = j.at("dtype").get<std::string>();
  r.impl = j.value("impl", std::string("alltoallv"));  // results before --ep-impl have none
  r.iters = j.at("iters").get<int>();
  r.rank_bytes_deepep = counts_at(j, "rank_bytes_deepep");
  r.rank_bytes_fabric = counts_at(j, "rank_bytes_fabric");
  r.dispatch = ep_phase_from(j.at("dispatch"));
  r.combine = ep_phase_from(j.at("combine"));
  r.back_to_back = ep_back_to_back_from(j);  // written since issue 40
  r.nccl_path = j.value("nccl_path", std::string());  // written since issue 26
  if (j.contains("gpu_state"))  // written since issue 45 where a GPU was read
    for (const auto& w : j.at("gpu_state")) r.gpu_state.push_back(gpu_window_from(w));
  return r;
}

Provenance provenance_from(const json& j) {
  Provenance p;
  p.commsweep_version = j.at("commsweep_version").get<std::string>();
  p.git_hash = j.at("git_hash").get<std::string>();
  p.started_at = j.at("started_at").get<std::string>();
  p.backend = j.at("backend").get<std::string>();
  p.ranks = j.at("ranks").get<int>();
  p.hosts = j.at("hosts").get<std::vector<std::string>>();
  for (const auto& g : j.at("gpus")) {
    p.gpus.push_back({g.at("rank").get<int>(), g.at("host").get<std::string>(),
                      g.at("device").get<int>(), g.at("name").get<std::string>(),
                      g.at("pci_bus_id").get<std::string>()});
  }
  p.driver_version = j.at("driver_version").get<std::string>();
  p.cuda_version = j.at("cuda_version").get<std::string>();
  p.nccl_version = j.at("nccl_version").get<std::string>();
  p.nccl_headers_version = j.at("nccl_headers_version").get<std::string>();
  p.mpi_version = j.at("mpi_version").get<std::string>();
  // Written by nccl runs since the NCCL version policy; absent on mpi and in older files.
  if (j.contains("nccl_policy")) {
    for (const auto& d : j.at("nccl_policy")) {
      NcclPolicyDecision decision{d.at("path").get<std::string>(), d.at("verdict").get<std::string>(),
                                  d.at("message").get<std::string>(), {}};
      for (const auto& s : d.at("settings")) {
        decision.settings.push_back({s.at("name").get<std::string>(), s.at("value").get<std::string>(),
                                     s.at("how").get<std::string>(), s.at("why").get<std::string>()});
      }
      p.nccl_policy.push_back(std::move(decision));
    }
  }
  p.environment = j.at("environment").get<std::map<std::string, std::string>>();
  p.arguments = j.at("arguments").get<std::vector<std::string>>();
  // Written by collective sweeps since --buffers; files from before it measured "warm".
  if (j.contains("buffers")) p.buffers = j.at("buffers").get<std::string>();
  // Written by collective sweeps since compare checks it; absent before (regress/measured_setup).
  if (j.contains("timer")) p.timer = j.at("timer").get<std::string>();
  return p;
}

json transport_json(const TransportReport& t) {
  json ranks = json::array();
  for (const auto& r : t.ranks) {
    json peers = json::object();
    for (const auto& [peer, kind] : r.peers) peers[std::to_string(peer)] = kind;
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"device", r.device},
                     {"network", r.network},
                     {"hcas", r.hcas},
                     {"link", r.link},
                     {"gdr", r.gdr ? json(*r.gdr) : json(nullptr)},
                     {"dmabuf", r.dmabuf},
                     {"channels", r.channels},
                     {"graph", r.graph},
                     {"peers", peers}});
  }
  return json{{"status", t.status},     {"source", t.source},     {"required", t.required},
              {"require_gdr", t.require_gdr}, {"problems", t.problems}, {"ranks", ranks}};
}

TransportReport transport_from(const json& j) {
  TransportReport t;
  t.status = j.at("status").get<std::string>();
  t.source = j.at("source").get<std::string>();
  t.required = j.at("required").get<std::string>();
  t.require_gdr = j.at("require_gdr").get<bool>();
  t.problems = j.at("problems").get<std::vector<std::string>>();
  for (const auto& x : j.at("ranks")) {
    TransportRank r;
    r.rank = x.at("rank").get<int>();
    r.host = x.at("host").get<std::string>();
    r.device = x.at("device").get<int>();
    r.network = x.at("network").get<std::string>();
    r.hcas = x.at("hcas").get<std::vector<std::string>>();
    r.link = x.at("link").get<std::string>();
    if (!x.at("gdr").is_null()) r.gdr = x.at("gdr").get<bool>();
    r.dmabuf = x.at("dmabuf").get<bool>();
    r.channels = x.at("channels").get<int>();
    r.graph = x.at("graph").get<std::string>();
    for (const auto& [peer, kind] : x.at("peers").items()) r.peers[std::stoi(peer)] = kind.get<std::string>();
    t.ranks.push_back(std::move(r));
  }
  return t;
}

ResultRow row_from(const json& j) {
  ResultRow row;
  row.test = j.at("test").get<std::string>();
  row.size_bytes = count_at(j, "size_bytes");
  row.count = count_at(j, "count");
  row.type = j.at("type").get<std::string>();
  row.redop = j.at("redop").get<std::string>();
  row.root = j.at("root").get<int>();
  row.out_of_place = timing_from(j.at("out_of_place"));
  row.in_place = timing_from(j.at("in_place"));
  return row;
}

// The array doc[key], each element read by `parse`; an error names the element: "rows[3]: ...".
template <typename Parse>
auto rows_at(const json& doc, const char* key, Parse parse) {
  const json& array = doc.at(key);
  if (!array.is_array()) throw std::runtime_error(std::string("\"") + key + "\" is not an array");
  std::vector<decltype(parse(array))> rows;
  for (const json& j : array) {
    try {
      rows.push_back(parse(j));
    } catch (const std::exception& e) {  // a json::exception or a check of the figures
      throw std::runtime_error(key + ("[" + std::to_string(rows.size()) + "]: ") + e.what());
    }
  }
  return rows;
}

}  // namespace

Provenance provenance_from_json(const json& j) { return provenance_from(j); }

json provenance_json(const Provenance& p) {
  json gpus = json::array();
  for (const auto& g : p.gpus) {
    gpus.push_back({{"rank", g.rank}, {"host", g.host}, {"device", g.device}, {"name", g.name},
                    {"pci_bus_id", g.pci_bus_id}});
  }
  json doc{{"commsweep_version", p.commsweep_version},
           {"git_hash", p.git_hash},
           {"started_at", p.started_at},
           {"backend", p.backend},
           {"ranks", p.ranks},
           {"hosts", p.hosts},
           {"gpus", gpus},
           {"driver_version", p.driver_version},
           {"cuda_version", p.cuda_version},
           {"nccl_version", p.nccl_version},
           {"nccl_headers_version", p.nccl_headers_version},
           {"mpi_version", p.mpi_version},
           {"environment", p.environment},
           {"arguments", p.arguments}};
  if (!p.buffers.empty()) doc["buffers"] = p.buffers;
  if (!p.timer.empty()) doc["timer"] = p.timer;
  if (!p.nccl_policy.empty()) {
    json decisions = json::array();
    for (const auto& d : p.nccl_policy) {
      json settings = json::array();
      for (const auto& s : d.settings) {
        settings.push_back({{"name", s.name}, {"value", s.value}, {"how", s.how}, {"why", s.why}});
      }
      decisions.push_back({{"path", d.path}, {"verdict", d.verdict}, {"message", d.message}, {"settings", settings}});
    }
    doc["nccl_policy"] = decisions;
  }
  return doc;
}

json to_json(const Results& r) {
  json rows = json::array();
  for (const auto& row : r.rows) {
    rows.push_back({{"kind", "collective"},
                    {"test", row.test},
                    {"size_bytes", row.size_bytes},
                    {"count", row.count},
                    {"type", row.type},
                    {"redop", row.redop},
                    {"root", row.root},
                    {"out_of_place", timing_json(row.out_of_place)},
                    {"in_place", timing_json(row.in_place)}});
  }
  json ep_rows = json::array();
  for (const auto& row : r.ep_rows) ep_rows.push_back(ep_row_json(row));
  json summary{{"avg_busbw_gbps", r.avg_busbw_gbps},
                {"wrong_total", r.wrong_total},
                {"ok", r.wrong_total == 0 && r.complete && r.health_fail.empty() && !expected_fail(r)},
                {"complete", r.complete}};
  if (!r.interrupted_by.empty()) summary["interrupted_by"] = r.interrupted_by;
  if (!r.failure.empty()) summary["failure"] = r.failure;
  if (!r.health_fail.empty()) summary["health_fail"] = r.health_fail;
  if (!r.expected_findings.empty()) {
    json findings = json::array();
    for (const auto& f : r.expected_findings) findings.push_back(expected_finding_json(f));
    summary["expected_findings"] = findings;
  }
  json doc{{"schema", r.schema},
           {"provenance", provenance_json(r.provenance)},
           {"rows", rows},
           {"ep_rows", ep_rows},
           {"summary", summary}};
  if (r.transport) doc["transport"] = transport_json(*r.transport);
  if (!r.notes.empty()) doc["notes"] = r.notes;
  if (!r.health.is_null()) doc["health"] = r.health;
  if (!r.documents.empty()) doc["documents"] = r.documents;
  return doc;
}

std::string readable_results_schema(const json& doc) {
  if (!doc.is_object() || !doc.contains("schema") || !doc.at("schema").is_string()) {
    throw std::runtime_error("not a commsweep results document: no \"schema\" string");
  }
  const auto schema = doc.at("schema").get<std::string>();
  if (schema != kResultsSchema && schema != kResultsSchemaV1) {
    throw std::runtime_error("results schema \"" + schema + "\" is not the one this commsweep reads (\"" +
                             kResultsSchema + "\")");
  }
  return schema;
}

Results results_from_json(const json& doc) {
  readable_results_schema(doc);
  Results r;
  try {
    r.provenance = provenance_from(doc.at("provenance"));
    r.rows = rows_at(doc, "rows", row_from);
    // Files written before the EP sweep have no "ep_rows"; they are still schema 1.
    if (doc.contains("ep_rows")) r.ep_rows = rows_at(doc, "ep_rows", ep_row_from);
    // Only nccl runs say which transport NCCL used; files from before it have none.
    if (doc.contains("transport")) r.transport = transport_from(doc.at("transport"));
    if (doc.contains("notes")) r.notes = doc.at("notes").get<std::vector<std::string>>();
    const auto& summary = doc.at("summary");
    r.avg_busbw_gbps = measure_at(summary, "avg_busbw_gbps");
    r.wrong_total = count_at(summary, "wrong_total");
    r.complete = summary.at("complete").get<bool>();
    if (summary.contains("interrupted_by")) {
      r.interrupted_by = summary.at("interrupted_by").get<std::string>();
    }
    if (summary.contains("failure")) r.failure = summary.at("failure").get<std::string>();
    if (summary.contains("health_fail")) r.health_fail = summary.at("health_fail").get<std::vector<std::string>>();
    if (summary.contains("expected_findings"))
      for (const auto& f : summary.at("expected_findings")) r.expected_findings.push_back(expected_finding_from(f));
    // "pairs": a suite's pairs documents as files before "documents" held them.
    for (const char* key : {"pairs", "documents"}) {
      if (!doc.contains(key)) continue;
      if (!doc.at(key).is_array()) throw std::runtime_error("\"" + std::string(key) + "\" is not a list");
      for (const json& d : doc.at(key)) r.documents.push_back(d);
    }
    if (doc.contains("health")) {
      if (!doc.at("health").is_object()) throw std::runtime_error("\"health\" is not an object");
      r.health = doc.at("health");
    }
  } catch (const std::exception& e) {  // json::exception, or a check above naming the field
    throw std::runtime_error(std::string("malformed results document: ") + e.what());
  }
  return r;
}

json read_json_file(const std::string& path, const std::string& what) {
  std::string text;
  try {
    text = read_bounded_file(path, kMaxJsonFileBytes);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(what + e.what());  // "baseline PATH: cannot read: why"
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw std::runtime_error(path + ": " + (text.empty() ? "empty" : "only blank space") +
                             ", no JSON in it (a run that never wrote its results, or the wrong file?)");
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    // nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 3: ..." less
    // its internal tag: the position and what was expected are what a user can act on.
    std::string why = e.what();
    if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) {
      why = why.substr(why.find("] ") + 2);
    }
    throw std::runtime_error(path + ": not valid JSON: " + why);
  }
}

Results read_results_file(const std::string& path) {
  const json doc = read_json_file(path);
  try {
    return results_from_json(doc);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace commsweep::report
