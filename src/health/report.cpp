#include "health/report.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "health/health_json.hpp"

namespace commsweep::health {

using nlohmann::json;

std::string describe(const Finding& f) {
  return f.counter + " " + f.detail + (f.limit.empty() ? "" : " (" + f.limit + ")") +
         (f.persistent ? " (so before the run too)" : "");
}

std::vector<std::string> fail_lines(const HealthReport& report) {
  std::vector<std::string> out;
  for (const auto& f : report.findings)
    if (f.severity == Severity::Fail) out.push_back(f.host + " " + f.component + ": " + describe(f));
  return out;
}

std::vector<std::string> hosts_read_nothing(const HealthReport& report) {
  std::vector<std::string> hosts;
  for (const auto& n : report.nodes)
    if (n.after.ports.empty() && n.after.pcie.empty() && n.after.gpus.empty()) hosts.push_back(n.host);
  return hosts;
}

HealthReport build_report(std::vector<NodeHealth> nodes, const RuleBook& rules) {
  HealthReport r;
  r.rules = rules;
  for (const auto& n : nodes) {
    auto found = n.before ? judge_change(*n.before, n.after, rules) : judge_state(n.after, rules);
    r.findings.insert(r.findings.end(), found.begin(), found.end());
    if (!n.after.nvml_note.empty()) r.unread.push_back(n.host + ": " + n.after.nvml_note);
    for (const auto& u : n.after.unread) r.unread.push_back(n.host + ": " + u);
    if (n.before) r.seconds = std::max(r.seconds, n.after.taken_at - n.before->taken_at);
  }
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  r.nodes = std::move(nodes);
  return r;
}

void join(HealthReport& report, std::vector<TrafficEvidence> evidence) {
  report.evidence = std::move(evidence);
  report.verdict = join_evidence(report.findings, report.evidence, report.nodes);
}

json report_json(const HealthReport& r) {
  json nodes = json::array();
  for (const auto& n : r.nodes) {
    json nj{{"host", n.host}, {"after", to_json(n.after)}};
    if (n.before) nj["before"] = to_json(*n.before);
    nodes.push_back(nj);
  }
  json findings = json::array();
  for (const auto& f : r.findings) findings.push_back(to_json(f));
  json evidence = json::array();
  // look_next too: an nvlink run's evidence points inside the node, and a re-judge must say so.
  for (const auto& e : r.evidence)
    evidence.push_back(json{{"hosts", e.hosts}, {"what", e.what}, {"look_next", e.look_next}});
  return json{{"seconds", r.seconds},   {"nodes", nodes},       {"findings", findings},
              {"unread", r.unread},     {"verdict", r.verdict}, {"evidence", evidence},
              {"thresholds", r.rules.file().empty() ? "built-in" : r.rules.file()}};
}

HealthReport report_from_json(const json& j) {
  HealthReport r;
  try {
    if (!j.is_object()) throw std::runtime_error("not an object");
    r.seconds = j.value("seconds", 0.0);
    for (const auto& n : j.value("nodes", json::array())) {
      NodeHealth node;
      node.host = n.at("host").get<std::string>();
      node.after = snapshot_from_json(n.at("after"));
      if (n.contains("before")) node.before = snapshot_from_json(n.at("before"));
      r.nodes.push_back(std::move(node));
    }
    for (const auto& f : j.at("findings")) r.findings.push_back(finding_from_json(f));
    r.unread = j.value("unread", std::vector<std::string>{});
    r.verdict = j.value("verdict", std::vector<std::string>{});
    for (const auto& e : j.value("evidence", json::array())) {
      TrafficEvidence t{e.at("hosts").get<std::vector<std::string>>(), e.at("what").get<std::string>()};
      if (e.contains("look_next")) t.look_next = e.at("look_next").get<std::string>();  // absent before 2026-11-27
      r.evidence.push_back(std::move(t));
    }
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed \"health\": ") + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("malformed \"health\": ") + e.what());
  }
  return r;
}

HealthReport rejudge(const json& health, const RuleBook& rules) {
  HealthReport stored = report_from_json(health);
  if (stored.nodes.empty()) {  // findings without their snapshots
    stored.findings = rejudge_rises(std::move(stored.findings), stored.seconds, rules);
    stored.rules = rules;
    return stored;
  }
  HealthReport r = build_report(std::move(stored.nodes), rules);
  r.unread = std::move(stored.unread);  // as they were read, with the gather's own lines
  if (!stored.evidence.empty()) join(r, std::move(stored.evidence));
  else r.verdict = std::move(stored.verdict);  // no evidence kept: the lines as they were joined
  return r;
}

namespace {
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out;
}

// host, component, counter, severity and rule labels of one finding.
std::string labels(const Finding& f) {
  return "host=\"" + label(f.host) + "\",component=\"" + label(f.component) + "\",counter=\"" + label(f.counter) +
         "\",severity=\"" + to_string(f.severity) + "\",rule=\"" + label(f.rule) + "\"";
}
}  // namespace

std::string render_prometheus(const HealthReport& r) {
  std::ostringstream out;
  int counts[3] = {0, 0, 0};
  for (const auto& f : r.findings) ++counts[static_cast<int>(f.severity)];
  out << "# HELP commsweep_health_findings Hardware health findings of the run, by severity.\n"
         "# TYPE commsweep_health_findings gauge\n";
  for (Severity s : {Severity::Fail, Severity::Warn, Severity::Info})
    out << "commsweep_health_findings{severity=\"" << to_string(s) << "\"} " << counts[static_cast<int>(s)] << "\n";
  out << "# HELP commsweep_health_unread Health items that could not be read.\n"
         "# TYPE commsweep_health_unread gauge\ncommsweep_health_unread " << r.unread.size() << "\n";
  out << "# HELP commsweep_health_counter_delta Rise of a hardware error counter during the run.\n"
         "# TYPE commsweep_health_counter_delta gauge\n";
  for (const auto& f : r.findings)
    if (f.delta) out << "commsweep_health_counter_delta{" << labels(f) << "} " << *f.delta << "\n";
  out << "# HELP commsweep_health_counter_rate Rise per second of a hardware error counter during the run.\n"
         "# TYPE commsweep_health_counter_rate gauge\n";
  for (const auto& f : r.findings)
    if (f.rate) out << "commsweep_health_counter_rate{" << labels(f) << "} " << *f.rate << "\n";
  out << "# HELP commsweep_health_finding A health finding without a count (state, width, saturation, XID).\n"
         "# TYPE commsweep_health_finding gauge\n";
  for (const auto& f : r.findings)
    if (!f.delta) out << "commsweep_health_finding{" << labels(f) << "} 1\n";
  return out.str();
}

}  // namespace commsweep::health
