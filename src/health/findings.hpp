// From snapshots to findings: what changed between before and after (deltas attributed to
// their host and component), and what is wrong in a single snapshot (a degraded link, a port
// down). Severity per counter (docs/fabric.md, "Health"): FAIL for a link that went down or
// trained narrow, a fatal AER, XID 79/74/48/94/95, an NVLink gone down, uncorrected ECC;
// WARN for an error counter rising faster than its rate, a saturated counter, pending row
// remaps, throttling by the hardware; INFO for an error counter that moved below its rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "health/records.hpp"

namespace commsweep::health {

enum class Severity { Info, Warn, Fail };
std::string to_string(Severity s);

struct Finding {
  Severity severity = Severity::Info;
  std::string host;
  std::string component;  // "mlx5_3 port 1", "PCIe 0000:0c:00.0 (NIC mlx5_3)", "GPU 2 NVLink 5"
  std::string counter;    // "symbol_error", "link_downed", "state", "width", "xid", ...
  std::optional<std::uint64_t> delta;  // a counter's rise; absent for states and saturation
  std::string detail;     // "+412", "ACTIVE -> DOWN", "x8 of x16", "XID 79"
  // A state that was already so in the before snapshot (a port down before the run, a link
  // that trained narrow at boot, a counter saturated long ago): reported, but not new, so that
  // `compare` does not call every night a regression for one old fault.
  bool persistent = false;
};

// The rule of one counter: FAIL on any rise, WARN above WARN_PER_SECOND (0: any rise), or
// INFO only (congestion evidence, traffic).
struct CounterRule {
  bool fail_on_rise = false;
  double warn_per_second = 0;
  bool info_only = false;
};
// nullopt for counters that are not judged (data and packet counts, unknown driver counters).
std::optional<CounterRule> rule_of(const std::string& counter);

// Findings of one snapshot alone (`commsweep health` without --duration).
std::vector<Finding> judge_state(const Snapshot& now);
// Findings of what changed from BEFORE to AFTER on one node, plus AFTER's state findings.
std::vector<Finding> judge_change(const Snapshot& before, const Snapshot& after);

Severity worst(const std::vector<Finding>& findings);

}  // namespace commsweep::health
