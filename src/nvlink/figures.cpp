#include "nvlink/figures.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "core/strings.hpp"
#include "report/json.hpp"
#include "report/json_fields.hpp"

namespace commsweep::nvlink {
namespace {

using nlohmann::json;
using namespace report::fields;

// "GPU 1 (0000:00:07.0)": the node's GPU by index, with its PCI bus id where the file has one.
std::string nvlink_figure_gpu(const std::map<std::uint64_t, std::string>& bus_ids, std::uint64_t index) {
  const auto it = bus_ids.find(index);
  const std::string bus = it == bus_ids.end() ? "" : it->second;
  return "GPU " + std::to_string(index) + (bus.empty() || bus == "-" ? "" : " (" + bus + ")");
}

report::Figure nvlink_figure(const std::string& host, std::vector<report::CasePart> parts, std::vector<std::string> gpus,
                             const std::string& config, std::uint64_t bytes, const std::string& place) {
  report::Figure f;
  f.workload = "nvlink";
  f.parts = std::move(parts);
  f.where.nodes = {host};
  f.where.gpus = std::move(gpus);
  f.where.ranks = static_cast<int>(f.where.gpus.size());
  f.where.link = "nvlink";
  f.series = {"nvlink", "-", "none", -1, config, bytes, place};
  return f;
}

// A bandwidth in GB/s moving MOVED bytes (its time, for the judge).
report::Figure nvlink_bandwidth(report::Figure f, double gbps, double moved, std::optional<std::uint64_t> wrong) {
  f.metric = "bandwidth";
  f.value = gbps;
  f.unit = "GB/s";
  f.better = report::Better::Higher;
  f.role = report::Role::Bandwidth;
  f.bytes = moved;
  f.wrong = wrong;
  return f;
}

// The judge's verdict recorded in the document (a pair's or a GPU's "slow" and "why"), on the
// figures from FIRST on, and a finding where it is slow; a file without them is not judged.
void nvlink_verdict(const json& j, const std::string& at, const std::string& finding, report::Sheet& sheet,
                    std::size_t first) {
  if (!j.contains("slow")) return;
  const bool slow = member(j, "slow", at).get<bool>();
  std::vector<std::string> why;
  for (const auto& w : j.value("why", json::array()))
    if (w.is_string()) why.push_back(w.get<std::string>());
  for (std::size_t i = first; i < sheet.figures.size(); ++i) sheet.figures[i].slow = slow, sheet.figures[i].why = why;
  if (!slow) return;
  std::string text = finding + ":";
  for (const auto& w : why) text += " " + w + ";";
  sheet.findings.push_back(text);
}

void nvlink_node_figures(const json& node, const std::string& path, std::uint64_t bytes, report::Sheet& sheet) {
  const std::string host = text_of(node, "host", path);
  std::map<std::uint64_t, std::string> bus_ids;
  const json& gpus = array_member(node, "gpus", path);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const std::string at = path + ".gpus[" + std::to_string(g) + "]";
    const json& bus = member(gpus[g], "pci_bus_id", at);
    bus_ids[count_of(gpus[g], "index", at)] = bus.is_string() ? bus.get<std::string>() : "";
  }
  const json& pairs = array_member(node, "pairs", path);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    const std::string at = path + ".pairs[" + std::to_string(i) + "]";
    const std::size_t first = sheet.figures.size();
    const std::uint64_t src = count_of(p, "src", at), dst = count_of(p, "dst", at);
    const std::string src_name = nvlink_figure_gpu(bus_ids, src), dst_name = nvlink_figure_gpu(bus_ids, dst);
    const std::string config = host + " " + src_name + " -> " + dst_name;
    const std::vector<report::CasePart> pair{{"host", host}, {"src", std::to_string(src)}, {"dst", std::to_string(dst)}};
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
      auto parts = pair;
      parts.push_back({"test", test});
      sheet.figures.push_back(nvlink_bandwidth(nvlink_figure(host, std::move(parts), {src_name, dst_name}, config, bytes, test),
                                               gbps.get<double>(), moved, words));
    }
    if (const json& latency = member(p, "latency_us", at); latency.is_number()) {
      report::Figure f = nvlink_figure(host, pair, {src_name, dst_name}, config, bytes, "latency");
      f.metric = "latency";
      f.value = latency.get<double>();
      f.unit = "us";
      f.better = report::Better::Lower;
      f.role = report::Role::Time;
      sheet.figures.push_back(std::move(f));
    }
    // The judge's verdict is the pair's (any test), on each of its figures.
    const std::string name = host + " " + src_name + " -> " + dst_name;
    nvlink_verdict(p, at, "slow pair " + name, sheet, first);
  }
  for (const auto& finding : node.value("gpu_findings", json::array())) {
    if (finding.is_string()) sheet.findings.push_back("GPU on " + host + ": " + finding.get<std::string>());
  }
  for (const auto& finding : node.value("gpu_state_findings", json::array()))
    if (finding.is_string()) sheet.findings.push_back(finding.get<std::string>());
  // All-to-one and one-to-all: the bytes of every other GPU's copy over the slowest copy's time.
  const double moved = static_cast<double>(bytes) * static_cast<double>(gpus.size() > 1 ? gpus.size() - 1 : 1);
  const json& targets = array_member(node, "targets", path);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const json& t = targets[i];
    const std::string at = path + ".targets[" + std::to_string(i) + "]";
    const std::uint64_t gpu = count_of(t, "gpu", at);
    const std::string gpu_name = nvlink_figure_gpu(bus_ids, gpu);
    const std::string config = host + " " + gpu_name;
    const json& wrong = member(t, "wrong", at);
    const std::size_t first = sheet.figures.size();
    for (const char* place : {"all_to_one", "one_to_all"}) {
      const json& gbps = member(t, std::string(place) + "_gbps", at);
      if (!gbps.is_number()) continue;
      std::optional<std::uint64_t> words;
      if (place == std::string("all_to_one") && wrong.is_number()) words = wrong.get<std::uint64_t>();
      sheet.figures.push_back(nvlink_bandwidth(
          nvlink_figure(host, {{"host", host}, {"gpu", std::to_string(gpu)}, {"test", place}}, {gpu_name}, config, bytes,
                        place),
          gbps.get<double>(), moved, words));
    }
    nvlink_verdict(t, at, "slow GPU " + config, sheet, first);
  }
}

}  // namespace

report::Sheet sheet_from_json(const json& doc) {
  report::Sheet sheet;
  sheet.workload = "nvlink";
  // The ending is at the top (a pairs document's is in its summary).
  sheet.schema = doc.at("schema").get<std::string>();
  sheet.provenance = report::provenance_from_json(doc.at("provenance"));
  sheet.complete = doc.at("complete").get<bool>();
  sheet.interrupted_by = text_or_empty(doc, "interrupted_by");
  sheet.failure = text_or_empty(doc, "failure");
  const json& wrong = doc.at("summary").at("wrong");
  sheet.wrong_total = wrong.is_number() ? wrong.get<std::uint64_t>() : 0;  // null: not checked
  if (doc.contains("health") && doc.at("health").is_object()) sheet.health = doc.at("health");
  // Every pair now: a malformed document is refused here, naming its field.
  const json& settings = member(doc, "settings", "");
  sheet.bytes = count_of(settings, "bytes", "settings");
  // How it was judged, for the printers (report/sheet_html.hpp).
  if (settings.contains("slow_below") && settings.at("slow_below").is_number()) {
    sheet.slow_fraction = settings.at("slow_below").get<double>();
    std::string note = "Per ordered pair " + std::to_string(settings.value("iters", 0)) + " copies of " +
                       std::to_string(sheet.bytes) + " B; a pair is slow below " + fixed(sheet.slow_fraction) +
                       " x its node's median";
    if (settings.contains("expected_floor") && settings.at("expected_floor").is_number()) {
      note += ", or below " + fixed(settings.at("expected_floor").get<double>()) + " x the topology's rate by copy engine";
    }
    sheet.notes.push_back(note + ".");
  }
  const json& nodes = array_member(doc, "nodes", "");
  std::set<std::string> hosts;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const std::string path = "nodes[" + std::to_string(n) + "]";
    nvlink_node_figures(nodes[n], path, sheet.bytes, sheet);
    hosts.insert(text_of(nodes[n], "host", path));
  }
  sheet.nodes.assign(hosts.begin(), hosts.end());
  return sheet;
}

}  // namespace commsweep::nvlink
