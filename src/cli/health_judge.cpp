#include "cli/health_judge.hpp"

#include <cstdio>
#include <stdexcept>

#include "run/health_gather.hpp"
#include "core/text_file.hpp"
#include "judge/outcomes.hpp"
#include "pairs/pairs_json.hpp"
#include "report/json.hpp"
#include "report/result.hpp"
#include "core/error.hpp"
#include "output/output_file.hpp"

namespace commsweep {

using nlohmann::json;

namespace {

const char* const kJudgeNoHealth = "no \"health\" member (the run had COMMSWEEP_HEALTH=0, or ended before its snapshots)";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw_usage("health: --judge " + path + ": " + why);
}

}  // namespace

json stored_health(const std::string& path) {
  std::string text;
  try {
    text = read_bounded_file(path, report::kMaxJsonFileBytes);
  } catch (const std::runtime_error& e) {
    throw_usage(std::string("health: --judge: ") + e.what());
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    refuse(path, "not JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!doc.is_object()) refuse(path, "not a commsweep results, pairs or health JSON file (not an object)");
  if (doc.contains("schema")) {
    const json& schema = doc.at("schema");
    if (schema == pairs::kPairsSchema) {
      if (!doc.contains("health") || !doc.at("health").is_object()) refuse(path, kJudgeNoHealth);
      return doc.at("health");
    }
    if (!schema.is_string() || schema.get<std::string>().rfind("commsweep.results/", 0) != 0)
      refuse(path, "schema " + schema.dump() + " is not a results file (" + report::kResultsSchemaV1 + " or " +
                       report::kResultsSchema + "), a pairs file (" + pairs::kPairsSchema +
                       ") or a commsweep health --json file");
    // The results schemas compare reads (report/json.hpp); of the document only its "health"
    // member is judged (the fixtures under tests/fixtures/health keep no more).
    try {
      report::readable_results_schema(doc);
    } catch (const std::runtime_error& e) {
      refuse(path, e.what());
    }
    const bool has_health = doc.contains("health") && doc.at("health").is_object();
    if (!has_health && schema == report::kResultsSchemaV1)
      refuse(path, std::string("a ") + report::kResultsSchemaV1 + " file, written before runs kept health snapshots (" +
                       report::kResultsSchema + " keeps them): nothing to judge here (`commsweep compare " + path +
                       " --baseline BASELINE.json` reads its rows)");
    if (!has_health) refuse(path, kJudgeNoHealth);
    return doc.at("health");
  }
  if (!doc.contains("findings") || !doc.contains("nodes"))
    refuse(path, "not a commsweep results, pairs or health JSON file (no \"schema\", no \"nodes\" and \"findings\")");
  return doc;
}

int print_and_write(const health::HealthReport& report, bool verbose, const std::string& json_path,
                    const std::string& prometheus, std::ostream& out, const std::string& where) {
  out << (verbose ? health::render_inventory(report) : "") << health::render_block(report, verbose) << std::flush;
  judge::Outcomes outcomes;
  outcomes.health_fail = health::worst(report.findings) == health::Severity::Fail;
  // A node where nothing was read was not checked: no pass (the "not read" lines say why).
  if (const auto blind = health::hosts_read_nothing(report); !blind.empty()) {
    std::string hosts;
    bool gpus_read = false;
    for (const auto& n : report.nodes) gpus_read = gpus_read || n.after.nvml_note.empty();
    for (const auto& h : blind) hosts += (hosts.empty() ? "" : ", ") + h;
    std::fprintf(stderr, "commsweep: health: nothing could be read on %s (0 RDMA ports, 0 PCIe links of GPUs or NICs, %s)%s: "
                 "a check that read nothing is no pass (exit 6, as for a FAIL)\n",
                 hosts.c_str(), gpus_read ? "0 GPUs" : "GPUs not read", where.c_str());
    outcomes.health_fail = true;
  }
  try {
    if (!json_path.empty()) output::write_output_file(json_path, health::report_json(report).dump(2) + "\n");
    if (!prometheus.empty()) output::write_output_file(prometheus, health::render_prometheus(report));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commsweep health: %s\n", e.what());
    outcomes.output_failed = true;
  }
  return judge::exit_code_of(outcomes);
}

int judge_stored_health(const JudgeRequest& r, std::ostream& out) {
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--json", r.json}, {"--prometheus", r.prometheus}})
    if (!path.empty())
      if (const std::string why = output::cannot_write_reason(path); !why.empty())
        throw_usage("health: " + flag + " " + path + ": cannot write there: " + why);
  const health::RuleBook rules = health_rules(thresholds_file(r.thresholds));
  const json member = stored_health(r.file);
  const json nodes = member.value("nodes", json::array());
  if (!nodes.is_array() || nodes.empty())
    refuse(r.file, "its \"health\" holds no snapshots to judge (\"nodes\" is empty: no node was read)");
  health::HealthReport report;
  try {
    report = health::rejudge(member, rules);
  } catch (const std::runtime_error& e) {
    refuse(r.file, e.what());
  }
  return print_and_write(report, r.verbose, r.json, r.prometheus, out);
}

}  // namespace commsweep
