#include "nvlink/nvlink_json.hpp"

#include <stdexcept>
#include <string>

#include "judge/outcomes.hpp"
#include "nvlink/expectation.hpp"
#include "report/json.hpp"

namespace commsweep::nvlink {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); }

json counters_json(const health::NvLink& l) {
  return json{{"replay", optional_json(l.replay)}, {"recovery", optional_json(l.recovery)},
              {"crc_flit", optional_json(l.crc_flit)}, {"crc_data", optional_json(l.crc_data)}};
}

// Per link: its state and counters before and after ("after" null where it was not read again).
json links_json(const Gpu& g) {
  json out = json::array();
  for (std::size_t i = 0; i < g.before.size(); ++i) {
    const auto& b = g.before[i];
    const health::NvLink* a = i < g.after.size() ? &g.after[i] : nullptr;
    out.push_back({{"link", b.link}, {"active", b.active}, {"before", counters_json(b)},
                   {"after", a ? counters_json(*a) : json(nullptr)}});
  }
  return out;
}

json gpu_json(const Gpu& g) {
  return json{{"index", g.index},
              {"rank", g.rank},
              {"device", g.device},
              {"name", g.name},
              {"pci_bus_id", g.pci_bus_id},
              {"nvlinks_active", g.nvlinks_active},
              {"nvlink_version", g.nvlink_version},
              {"nvlink_version_text", version_text(g.nvlink_version)},
              {"nvlink_speed_mbps", g.nvlink_speed_mbps ? json(*g.nvlink_speed_mbps) : json(nullptr)},
              {"nvlinks_present", g.nvlinks_present},
              {"nvlink_mode", mode_of(g).text()},
              {"nvlink_reduced", mode_of(g).reduced},
              {"expected_gbps", optional_json(expected_gbps(g))},
              {"nvml_note", g.nvml_note},
              {"nvlinks", links_json(g)}};
}

json metrics_json(const std::array<std::optional<double>, kMetrics>& values) {
  json out = json::object();
  for (Metric m : kAllMetrics) out[metric_name(m)] = optional_json(values[static_cast<std::size_t>(m)]);
  return out;
}

// What was measured of a pair (raw_pair_json) and how it was judged.
json raw_pair_json(const PairResult& p) {
  json j{{"src", p.src},         {"dst", p.dst}, {"gbps", metrics_json(p.gbps)},
         {"latency_us", optional_json(p.latency_us)}, {"wrong", p.wrong}, {"note", p.note}};
  // Only where a GPU was read, as the sweeps' halves.
  if (!p.gpu_state.empty()) {
    json windows = json::array();
    for (const auto& w : p.gpu_state) windows.push_back(report::gpu_window_json(w));
    j["gpu_state"] = windows;
  }
  return j;
}

json pair_json(const NodeMatrix& node, const PairResult& p, const PairVerdict& v) {
  json j = raw_pair_json(p);
  j["expected_gbps"] = optional_json(expected_gbps(node.gpus.at(p.src), node.gpus.at(p.dst)));
  j["ratio_to_expected"] = optional_json(v.ratio_to_expected);
  j["ratio_to_median"] = metrics_json(v.ratio_to_median);
  j["slow"] = v.slow;
  j["why"] = v.why;
  // The sourced figures (results/expected/) its tests are held to; null where none applies.
  json expected = nullptr, of_expected = nullptr;
  for (const auto& e : v.expected) {
    expected[e.key] = json{{"value", e.value}, {"entry", e.entry}};
    of_expected[e.key] = e.of_expected;
  }
  j["expected"] = expected;
  j["of_expected"] = of_expected;
  return j;
}

json raw_target_json(const TargetResult& t) {
  return json{{"gpu", t.gpu}, {"all_to_one_gbps", optional_json(t.all_to_one_gbps)},
              {"one_to_all_gbps", optional_json(t.one_to_all_gbps)}, {"wrong", t.wrong}};
}

json target_json(const TargetResult& t, const TargetVerdict& v) {
  json j = raw_target_json(t);
  j["slow"] = v.slow;
  j["why"] = v.why;
  return j;
}

// n x n of METRIC, src rows and dst columns, null on the diagonal and where not measured.
json matrix_json(const NodeMatrix& node, Metric m) {
  const std::size_t n = node.gpus.size();
  json rows = json::array();
  for (std::size_t i = 0; i < n; ++i) rows.push_back(json(std::vector<json>(n, json(nullptr))));
  for (const auto& p : node.pairs) rows[p.src][p.dst] = optional_json(p.gbps[static_cast<std::size_t>(m)]);
  return rows;
}

json node_json(const NodeMatrix& node, const NodeAnalysis& a) {
  json gpus = json::array(), pairs = json::array(), targets = json::array(), matrices = json::object();
  for (const auto& g : node.gpus) gpus.push_back(gpu_json(g));
  for (std::size_t i = 0; i < node.pairs.size(); ++i) pairs.push_back(pair_json(node, node.pairs[i], a.pairs[i]));
  for (std::size_t i = 0; i < node.targets.size(); ++i) targets.push_back(target_json(node.targets[i], a.targets[i]));
  for (Metric m : kAllMetrics) matrices[metric_name(m)] = matrix_json(node, m);
  json medians = metrics_json(a.median_gbps);
  medians["latency_us"] = optional_json(a.median_latency_us);
  medians["all_to_one_gbps"] = optional_json(a.median_all_to_one_gbps);
  medians["one_to_all_gbps"] = optional_json(a.median_one_to_all_gbps);
  return json{{"host", node.host},       {"gpus", gpus},
              {"expected_gbps", optional_json(a.expected_gbps)},
              {"medians", medians},      {"pairs", pairs},
              {"targets", targets},      {"matrices", matrices},
              {"gpu_findings", a.gpu_findings},
              {"expected_findings", a.expected_findings},
              {"gpu_state_findings", a.gpu_state_findings},
              {"slow_pairs", a.slow_pairs}, {"slow_targets", a.slow_targets}, {"wrong", a.wrong}};
}

// Readers: a field that is missing or of the wrong type is named.
const json& field(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::runtime_error(where + ": missing \"" + key + "\"");
  return j.at(key);
}

std::optional<double> optional_number(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<double>();
}

health::NvLink link_from(const json& j, bool after) {
  health::NvLink l;
  l.link = j.at("link").get<int>();
  l.active = j.at("active").get<bool>();
  const json& c = j.at(after ? "after" : "before");
  auto read = [&](const char* key, std::optional<std::uint64_t>& out) {
    if (!c.at(key).is_null()) out = c.at(key).get<std::uint64_t>();
  };
  read("replay", l.replay);
  read("recovery", l.recovery);
  read("crc_flit", l.crc_flit);
  read("crc_data", l.crc_data);
  return l;
}

Gpu gpu_from(const json& j) {
  Gpu g;
  g.index = j.at("index").get<int>();
  g.rank = j.at("rank").get<int>();
  g.device = j.at("device").get<int>();
  g.name = j.at("name").get<std::string>();
  g.pci_bus_id = j.at("pci_bus_id").get<std::string>();
  g.nvlinks_active = j.at("nvlinks_active").get<int>();
  g.nvlink_version = j.at("nvlink_version").get<int>();
  // Files written before the NVLink mode was read lack these.
  if (j.contains("nvlink_speed_mbps") && !j.at("nvlink_speed_mbps").is_null())
    g.nvlink_speed_mbps = j.at("nvlink_speed_mbps").get<unsigned>();
  g.nvlinks_present = j.value("nvlinks_present", static_cast<int>(j.at("nvlinks").size()));
  g.nvml_note = j.at("nvml_note").get<std::string>();
  for (const auto& l : j.at("nvlinks")) {
    g.before.push_back(link_from(l, false));
    if (!l.at("after").is_null()) g.after.push_back(link_from(l, true));
  }
  return g;
}

PairResult pair_from(const json& j) {
  PairResult p;
  p.src = j.at("src").get<int>();
  p.dst = j.at("dst").get<int>();
  for (Metric m : kAllMetrics) p.gbps[static_cast<std::size_t>(m)] = optional_number(j.at("gbps").at(metric_name(m)));
  p.latency_us = optional_number(j.at("latency_us"));
  p.wrong = j.at("wrong").get<std::uint64_t>();
  p.note = j.at("note").get<std::string>();
  for (const auto& w : j.value("gpu_state", json::array())) p.gpu_state.push_back(report::gpu_window_from(w));
  return p;
}

TargetResult target_from(const json& t) {
  TargetResult r;
  r.gpu = t.at("gpu").get<int>();
  r.all_to_one_gbps = optional_number(t.at("all_to_one_gbps"));
  r.one_to_all_gbps = optional_number(t.at("one_to_all_gbps"));
  r.wrong = t.at("wrong").get<std::uint64_t>();
  return r;
}

NodeMatrix node_from(const json& j, const std::string& where) {
  NodeMatrix n;
  n.host = field(j, "host", where).get<std::string>();
  for (const auto& g : field(j, "gpus", where)) n.gpus.push_back(gpu_from(g));
  for (const auto& p : field(j, "pairs", where)) {
    n.pairs.push_back(pair_from(p));
    if (n.pairs.back().src >= static_cast<int>(n.gpus.size()) || n.pairs.back().dst >= static_cast<int>(n.gpus.size()))
      throw std::runtime_error(where + ": a pair names a GPU the node does not have");
  }
  for (const auto& t : field(j, "targets", where)) n.targets.push_back(target_from(t));
  return n;
}

}  // namespace

json part_to_json(const RankPart& part) {
  json pairs = json::array(), targets = json::array();
  for (const auto& p : part.pairs) pairs.push_back(raw_pair_json(p));
  for (const auto& t : part.targets) targets.push_back(raw_target_json(t));
  return json{{"gpu", gpu_json(part.gpu)}, {"pairs", pairs}, {"targets", targets}};
}

RankPart part_from_json(const json& j) {
  RankPart part;
  part.gpu = gpu_from(j.at("gpu"));
  for (const auto& p : j.at("pairs")) part.pairs.push_back(pair_from(p));
  for (const auto& t : j.at("targets")) part.targets.push_back(target_from(t));
  return part;
}

json to_json(const NvlinkRun& run, const Analysis& a) {
  const RunConfig& s = run.settings;
  json nodes = json::array();
  for (std::size_t i = 0; i < run.nodes.size(); ++i) nodes.push_back(node_json(run.nodes[i], a.nodes[i]));
  json summary{{"nodes", run.nodes.size()},
               {"pairs", a.pairs},
               {"slow_pairs", a.slow_pairs},
               {"slow_targets", a.slow_targets},
               {"gpu_findings", a.gpu_findings},
               {"wrong", a.wrong_total},
               {"exit_code", judge::exit_code_of(outcomes_of(run, a))}};
  if (!run.health_fail.empty()) summary["health_fail"] = run.health_fail;
  return json{{"schema", kSchema},
              {"complete", run.complete},
              {"interrupted_by", run.interrupted_by.empty() ? json(nullptr) : json(run.interrupted_by)},
              {"failure", run.failure.empty() ? json(nullptr) : json(run.failure)},
              {"settings", {{"bytes", s.bytes},
                            {"iters", s.iters},
                            {"warmup", s.warmup},
                            {"latency_iters", s.latency_iters},
                            {"slow_below", s.slow_fraction},
                            {"expected_floor", s.expected_floor},
                            {"latency_over", s.latency_over},
                            {"fault", s.fault.empty() ? json(nullptr) : json(s.fault)}}},
              {"provenance", report::provenance_json(run.provenance)},
              {"nodes", nodes},
              {"summary", summary}};
}

NvlinkRun run_from_json(const json& doc) {
  if (!doc.is_object() || doc.value("schema", "") != kSchema)
    throw std::runtime_error(std::string("not a ") + kSchema + " document (\"schema\")");
  NvlinkRun run;
  try {
    const json& s = doc.at("settings");
    run.settings.bytes = s.at("bytes").get<std::uint64_t>();
    run.settings.iters = s.at("iters").get<int>();
    run.settings.warmup = s.at("warmup").get<int>();
    run.settings.latency_iters = s.at("latency_iters").get<int>();
    run.settings.slow_fraction = s.at("slow_below").get<double>();
    run.settings.expected_floor = s.at("expected_floor").get<double>();
    run.settings.latency_over = s.at("latency_over").get<double>();
    if (!s.at("fault").is_null()) run.settings.fault = s.at("fault").get<std::string>();
    run.complete = doc.at("complete").get<bool>();
    if (!doc.at("interrupted_by").is_null()) run.interrupted_by = doc.at("interrupted_by").get<std::string>();
    if (!doc.at("failure").is_null()) run.failure = doc.at("failure").get<std::string>();
    run.provenance = report::provenance_from_json(doc.at("provenance"));
    const json& nodes = doc.at("nodes");
    for (std::size_t i = 0; i < nodes.size(); ++i) run.nodes.push_back(node_from(nodes[i], "nodes[" + std::to_string(i) + "]"));
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string(kSchema) + ": " + e.what());
  }
  return run;
}

}  // namespace commsweep::nvlink
