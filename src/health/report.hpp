// Every node's snapshots and findings of one command, and its printers: the short '#' block
// after the table, the "health" JSON member, the Prometheus textfile lines; and the same
// member read back and judged again under the rules in force (`health --judge`, `compare`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/findings.hpp"
#include "health/join.hpp"
#include "health/records.hpp"

namespace commsweep::health {

struct HealthReport {
  std::vector<NodeHealth> nodes;
  std::vector<Finding> findings;      // every node's, worst first
  std::vector<std::string> unread;    // "host: what could not be read and why"
  std::vector<std::string> verdict;   // the joined lines (join.hpp), when traffic was judged
  std::vector<TrafficEvidence> evidence;  // the traffic they were joined with (kept for re-judging)
  double seconds = 0;                 // between before and after (0: one snapshot)
  RuleBook rules;                     // the rules the findings were judged by
};

// The nodes of REPORT where nothing was read (no RDMA port, PCIe link or GPU): not looked at,
// so not healthy either (the block says "nothing could be read"; `commsweep health` fails).
std::vector<std::string> hosts_read_nothing(const HealthReport& report);

// Judges each node (judge_change with a before, judge_state without) under RULES.
HealthReport build_report(std::vector<NodeHealth> nodes, const RuleBook& rules = builtin_rules());
// The verdict lines of REPORT's findings joined with EVIDENCE (kept in the report).
void join(HealthReport& report, std::vector<TrafficEvidence> evidence);

// The '#' block: one summary line for all nodes (what was read, the rates seen against their
// limits, the verdict), one line per node and component class with a WARN or FAIL (its
// components, counters, rates and limits; at most kFindingLines), what could not be read, and
// the verdict lines. VERBOSE: every finding, INFO included, one line each.
std::string render_block(const HealthReport& report, bool verbose = false);
nlohmann::json report_json(const HealthReport& report);
// Reads back a "health" member (a results or pairs file's, or `health --json`'s file): its
// snapshots, findings, unread, verdict and evidence. Throws std::runtime_error naming what is
// malformed.
HealthReport report_from_json(const nlohmann::json& j);
// A stored "health" member judged again under RULES: from its snapshots where it has them
// (the verdict joined again where its evidence was kept), else its stored rises from their
// deltas (findings.hpp, rejudge_rises). Throws std::runtime_error on a malformed member.
HealthReport rejudge(const nlohmann::json& health, const RuleBook& rules);
// Prometheus text exposition (node-exporter textfile collector).
std::string render_prometheus(const HealthReport& report);

// "symbol_error +412, 41/s (limit 0.1/s, IBTA BER)" or "state ACTIVE -> DOWN (LinkUp ->
// Polling) (IBTA)".
std::string describe(const Finding& f);

// Each FAIL finding of REPORT as one line, "HOST COMPONENT: describe(f)", worst first: what a
// measuring command's JSON summary names as health_fail, and why it exits 6. A FAIL that was
// already so before the run ("persistent") is one too: `commsweep health` fails a node for it
// (its one-snapshot state findings are all of that kind), and a run on a node that health
// fails is no pass; only `compare`, which asks what is new against the baseline, leaves it out.
std::vector<std::string> fail_lines(const HealthReport& report);

// What each node has, one line per port, PCIe link and GPU ("#   GPU 0 NVIDIA H100 ...: 34 C,
// PCIe gen5 x16 of gen5 x16, NVLink 18/18 active, ..."): what `commsweep health --verbose` prints.
std::string render_inventory(const HealthReport& report);

}  // namespace commsweep::health
