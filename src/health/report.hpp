// Every node's snapshots and findings of one command, and its printers: the short '#' block
// after the table, the "health" JSON member, the Prometheus textfile lines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/findings.hpp"
#include "health/records.hpp"

namespace commsweep::health {

struct NodeHealth {
  std::string host;
  std::optional<Snapshot> before;  // absent for a single snapshot
  Snapshot after;                  // or the single one
};

struct HealthReport {
  std::vector<NodeHealth> nodes;
  std::vector<Finding> findings;      // every node's, worst first
  std::vector<std::string> unread;    // "host: what could not be read and why"
  std::vector<std::string> verdict;   // the joined lines (join.hpp), when traffic was judged
  double seconds = 0;                 // between before and after (0: one snapshot)
};

// Judges each node (judge_change with a before, judge_state without).
HealthReport build_report(std::vector<NodeHealth> nodes);

// "# Health: ..." lines: the counts, one line per component with a WARN or FAIL (its moved
// counters together), what could not be read, and the verdict lines.
std::string render_block(const HealthReport& report);
nlohmann::json report_json(const HealthReport& report);
// Reads back the findings, unread and verdict of a "health" member (for compare).
HealthReport report_from_json(const nlohmann::json& j);
// Prometheus text exposition (node-exporter textfile collector).
std::string render_prometheus(const HealthReport& report);

// "symbol_error +412" or "state ACTIVE -> DOWN (LinkUp -> Polling)".
std::string describe(const Finding& f);

}  // namespace commsweep::health

namespace commsweep::health {
// What each node has, one line per port, PCIe link and GPU ("#   GPU 0 NVIDIA H100 ...: 34 C,
// PCIe gen5 x16 of gen5 x16, NVLink 18/18 active, ..."): what `commsweep health` prints.
std::string render_inventory(const HealthReport& report);
}  // namespace commsweep::health
