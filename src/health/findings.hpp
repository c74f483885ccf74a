// From snapshots to findings: what changed between before and after (deltas attributed to
// their host and component), and what is wrong in a single snapshot (a degraded link, a port
// down). Every finding is judged by one row of the rule table (rules.hpp), which it names, with
// its rate over the window and the limit it was held to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "health/records.hpp"
#include "health/rules.hpp"

namespace commsweep::health {

struct Finding {
  Severity severity = Severity::Info;
  std::string host;
  std::string component;  // "mlx5_3 port 1", "PCIe 0000:0c:00.0 (NIC mlx5_3)", "GPU 2 NVLink 5"
  std::string counter;    // "symbol_error", "link_downed", "state", "width", "xid", ...
  std::optional<std::uint64_t> delta;  // a counter's rise; absent for states and saturation
  std::string detail;     // "+412, 41/s", "ACTIVE -> DOWN", "x8 of x16", "XID 79"
  // A state that was already so in the before snapshot (a port down before the run, a link
  // that trained narrow at boot, a counter saturated long ago): reported, but not new, so that
  // `compare` does not call every night a regression for one old fault.
  bool persistent = false;
  std::string rule;              // the row of the rule table that judged it
  RuleClass cls = RuleClass::RdmaPort;
  std::optional<double> rate;    // a rise per second of the window
  std::string limit;             // Rule::said(): "limit 100/s, DCGM", "any rise fails, IBTA"
};

// The built-in rules (a RuleBook with no thresholds file).
const RuleBook& builtin_rules();

// Findings of one snapshot alone (`commsweep health` without --duration).
std::vector<Finding> judge_state(const Snapshot& now, const RuleBook& rules = builtin_rules());
// Findings of what changed from BEFORE to AFTER on one node, plus AFTER's state findings.
std::vector<Finding> judge_change(const Snapshot& before, const Snapshot& after,
                                  const RuleBook& rules = builtin_rules());
// Stored findings without their snapshots (results written before snapshots were kept, or by
// hand): each counter's rise judged again by its rule from its delta over SECONDS; a state
// keeps the severity it was stored with.
std::vector<Finding> rejudge_rises(std::vector<Finding> stored, double seconds, const RuleBook& rules);

Severity worst(const std::vector<Finding>& findings);

// The class of a component as findings name it ("PCIe ..." , "GPU 2 NVLink 5", "GPU 2",
// "mlx5_0 port 1"), for findings stored without their rule.
RuleClass class_of_component(const std::string& component);

}  // namespace commsweep::health
