#include "regress/matrices.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace commsweep::regress {
namespace {

using nlohmann::json;

std::string field_path(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

[[noreturn]] void malformed(const std::string& path, const std::string& name, const std::string& what) {
  throw std::runtime_error("field \"" + field_path(path, name) + "\" " + what);
}

// A member of a document, or an error naming it ("nodes[0].pairs[3].src").
const json& member(const json& j, const std::string& name, const std::string& path) {
  if (!j.is_object() || !j.contains(name)) malformed(path, name, "missing");
  return j.at(name);
}

const json& array_member(const json& j, const std::string& name, const std::string& path) {
  const json& a = member(j, name, path);
  if (!a.is_array()) malformed(path, name, "is not a list");
  return a;
}

std::string text_of(const json& j, const std::string& name, const std::string& path) {
  const json& v = member(j, name, path);
  if (!v.is_string()) malformed(path, name, "is not a string");
  return v.get<std::string>();
}

std::uint64_t count_of_field(const json& j, const std::string& name, const std::string& path) {
  const json& v = member(j, name, path);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    malformed(path, name, "is not a whole number >= 0");
  }
  return v.get<std::uint64_t>();
}

// One sample of a matrix key: its bandwidth (0 for a latency) and time; no per-rank times (no
// straggler to find) and no second half (no within-row noise).
void add_matrix_sample(std::map<Key, Observation>& out, const Key& key, double gbps, double time_us,
                       std::optional<std::uint64_t> wrong) {
  auto& o = out[key];
  o.key = key;
  o.bandwidth_gbps.push_back(gbps);
  o.time_us.push_back(time_us);
  o.rank_time_us.emplace_back();
  o.within_spread_pct.push_back(0);
  if (wrong) o.wrong = o.wrong.value_or(0) + *wrong;
}

// The time that moves BYTES at GBPS, in microseconds (GB/s = 1e9 bytes/s).
double time_us_of(double bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e3) : 0; }

// "GPU 1 (0000:00:07.0)": the node's GPU by index, with its PCI bus id where the file has one.
std::string nvlink_gpu_name(const std::map<std::uint64_t, std::string>& bus_ids, std::uint64_t index) {
  const auto it = bus_ids.find(index);
  const std::string bus = it == bus_ids.end() ? "" : it->second;
  return "GPU " + std::to_string(index) + (bus.empty() || bus == "-" ? "" : " (" + bus + ")");
}

void observe_nvlink_node(const json& node, const std::string& path, std::uint64_t bytes,
                         std::map<Key, Observation>& out) {
  const std::string host = text_of(node, "host", path);
  std::map<std::uint64_t, std::string> bus_ids;
  const json& gpus = array_member(node, "gpus", path);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const std::string at = path + ".gpus[" + std::to_string(g) + "]";
    const json& bus = member(gpus[g], "pci_bus_id", at);
    bus_ids[count_of_field(gpus[g], "index", at)] = bus.is_string() ? bus.get<std::string>() : "";
  }
  const json& pairs = array_member(node, "pairs", path);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    const std::string at = path + ".pairs[" + std::to_string(i) + "]";
    const std::string config = host + " " + nvlink_gpu_name(bus_ids, count_of_field(p, "src", at)) + " -> " +
                               nvlink_gpu_name(bus_ids, count_of_field(p, "dst", at));
    const json& wrong = member(p, "wrong", at);
    const json& tests = member(p, "gbps", at);
    if (!tests.is_object()) malformed(at, "gbps", "is not an object");
    for (const auto& [test, gbps] : tests.items()) {
      if (!gbps.is_number()) continue;  // not measured (null)
      // A bidirectional test's GB/s counts both directions' bytes (docs/nvlink.md).
      const bool bidir = test.size() > 6 && test.compare(test.size() - 6, 6, "_bidir") == 0;
      const double moved = static_cast<double>(bytes) * (bidir ? 2 : 1);
      std::optional<std::uint64_t> words;
      if (test == "ce_write" && wrong.is_number()) words = wrong.get<std::uint64_t>();
      add_matrix_sample(out, {kNvlinkTest, "-", "none", -1, config, bytes, test}, gbps.get<double>(),
                        time_us_of(moved, gbps.get<double>()), words);
    }
    if (const json& latency = member(p, "latency_us", at); latency.is_number()) {
      add_matrix_sample(out, {kNvlinkTest, "-", "none", -1, config, bytes, kLatencyPlace}, 0, latency.get<double>(),
                        std::nullopt);
    }
  }
  // All-to-one and one-to-all: the bytes of every other GPU's copy over the slowest copy's time.
  const double moved = static_cast<double>(bytes) * static_cast<double>(gpus.size() > 1 ? gpus.size() - 1 : 1);
  const json& targets = array_member(node, "targets", path);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const json& t = targets[i];
    const std::string at = path + ".targets[" + std::to_string(i) + "]";
    const std::string config = host + " " + nvlink_gpu_name(bus_ids, count_of_field(t, "gpu", at));
    const json& wrong = member(t, "wrong", at);
    for (const char* place : {"all_to_one", "one_to_all"}) {
      const json& gbps = member(t, std::string(place) + "_gbps", at);
      if (!gbps.is_number()) continue;
      std::optional<std::uint64_t> words;
      if (place == std::string("all_to_one") && wrong.is_number()) words = wrong.get<std::uint64_t>();
      add_matrix_sample(out, {kNvlinkTest, "-", "none", -1, config, bytes, place}, gbps.get<double>(),
                        time_us_of(moved, gbps.get<double>()), words);
    }
  }
}

std::vector<std::string> pairs_node_names(const json& doc) {
  std::vector<std::string> names;
  const json& nodes = array_member(doc, "nodes", "");
  for (std::size_t i = 0; i < nodes.size(); ++i) names.push_back(text_of(nodes[i], "name", "nodes[" + std::to_string(i) + "]"));
  return names;
}

const std::string& pairs_node(const std::vector<std::string>& names, std::uint64_t index, const std::string& path) {
  if (index >= names.size()) throw std::runtime_error("field \"" + path + "\" names no node of \"nodes\"");
  return names[index];
}

// A pair's slowest rail's time (the exchange time of the pair's GB/s), and its rails' wrong
// elements (none: not checked, --check 0).
std::pair<double, std::optional<std::uint64_t>> pairs_rails(const json& p, const std::string& at, double bytes,
                                                           double gbps) {
  double time_us = time_us_of(bytes, gbps);
  std::optional<std::uint64_t> wrong;
  const json& slowest = member(p, "slowest_rail", at);
  const json& rails = array_member(p, "rails", at);
  for (std::size_t r = 0; r < rails.size(); ++r) {
    const std::string rail = at + ".rails[" + std::to_string(r) + "]";
    if (member(rails[r], "local_rank", rail) == slowest && member(rails[r], "time_us", rail).is_number()) {
      time_us = rails[r].at("time_us").get<double>();
    }
    if (const json& w = member(rails[r], "wrong", rail); w.is_number()) wrong = wrong.value_or(0) + w.get<std::uint64_t>();
  }
  return {time_us, wrong};
}

// Above 64 nodes a document holds its slow pairs only (pairs/pairs_json.hpp, kFullDetailNodes):
// each node is judged by the median and the slowest of its pairs (node_summary).
void observe_pairs_nodes(const json& doc, const std::vector<std::string>& names, const Key& base,
                         std::map<Key, Observation>& out) {
  const json& summary = array_member(doc, "node_summary", "");
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const std::string at = "node_summary[" + std::to_string(i) + "]";
    Key key = base;
    key.config = pairs_node(names, count_of_field(summary[i], "node", at), at + ".node");
    for (const auto& [place, field] : {std::pair{"node_median", "median_gbps"}, std::pair{"node_min", "min_gbps"}}) {
      const json& gbps = member(summary[i], field, at);
      if (!gbps.is_number()) continue;  // a node of no measured pair
      key.place = place;
      add_matrix_sample(out, key, gbps.get<double>(), time_us_of(static_cast<double>(key.size), gbps.get<double>()),
                        std::nullopt);
    }
  }
}

}  // namespace

void observe_nvlink(const json& doc, std::map<Key, Observation>& out) {
  const std::uint64_t bytes = count_of_field(member(doc, "settings", ""), "bytes", "settings");
  const json& nodes = array_member(doc, "nodes", "");
  for (std::size_t n = 0; n < nodes.size(); ++n) observe_nvlink_node(nodes[n], "nodes[" + std::to_string(n) + "]", bytes, out);
}

void observe_pairs(const json& doc, std::map<Key, Observation>& out) {
  const json& settings = member(doc, "settings", "");
  Key base{kPairsTest, text_of(settings, "type", "settings"), "none", -1, "", count_of_field(settings, "bytes", "settings"),
           "sendrecv"};
  const auto names = pairs_node_names(doc);
  if (doc.contains("detail") && doc.at("detail") == "sparse") return observe_pairs_nodes(doc, names, base, out);
  const json& pairs = array_member(doc, "pairs", "");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    const std::string at = "pairs[" + std::to_string(i) + "]";
    const std::string& a = pairs_node(names, count_of_field(p, "node_a", at), at + ".node_a");
    const std::string& b = pairs_node(names, count_of_field(p, "node_b", at), at + ".node_b");
    const json& gbps = member(p, "gbps", at);
    if (!gbps.is_number()) continue;
    Key key = base;
    key.config = std::min(a, b) + " <-> " + std::max(a, b);  // either order names one pair
    const auto [time_us, wrong] = pairs_rails(p, at, static_cast<double>(base.size), gbps.get<double>());
    add_matrix_sample(out, key, gbps.get<double>(), time_us, wrong);
  }
}

std::vector<std::string> matrix_nodes(const report::Results& run) {
  std::set<std::string> nodes;
  for (const auto& doc : run.nvlink) {
    const json& list = array_member(doc, "nodes", "");
    for (std::size_t n = 0; n < list.size(); ++n) nodes.insert(text_of(list[n], "host", "nodes[" + std::to_string(n) + "]"));
  }
  for (const auto& doc : run.pairs) {
    for (const auto& name : pairs_node_names(doc)) nodes.insert(name);
  }
  return {nodes.begin(), nodes.end()};
}

std::vector<std::string> matrix_bytes(const report::Results& run) {
  std::set<std::string> out;
  for (const auto& [test, docs] : {std::pair{kNvlinkTest, &run.nvlink}, std::pair{kPairsTest, &run.pairs}}) {
    for (const auto& doc : *docs) {
      out.insert(std::string(test) + ":" + size_text(count_of_field(member(doc, "settings", ""), "bytes", "settings")));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace commsweep::regress
