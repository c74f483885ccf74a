// The rules every health finding is judged by: one row per counter (judged on its rise between
// the before and after snapshots) or state (judged as a snapshot shows it), each with its class,
// its unit, its severity and where its limit comes from. rules.cpp is the table, each row citing
// its source; docs/health.md prints it, results/health-thresholds.yaml ships it as the file a
// user edits (--health-thresholds), and tests/unit/health_rules_test.cpp keeps the three equal.
// findings.cpp, join.cpp and report.cpp ask the table; no rule is written anywhere else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commsweep::health {

enum class Severity { Info, Warn, Fail };
std::string to_string(Severity s);

// What a rule is about, and so its unit and the group a finding is printed in.
enum class RuleClass {
  RdmaPort,  // an RDMA port and its IB PortCounters (counters/)
  RdmaHw,    // the driver's per-port hw_counters/ (mlx5)
  Pcie,      // the PCIe link of a GPU or NIC, and its AER statistics
  Gpu,       // a GPU as NVML sees it
  NvLink,    // one NVLink of a GPU
};
// "RDMA port counter", "RDMA hw_counter", "PCIe", "GPU", "NVLink": the docs' and the file's words.
std::string class_name(RuleClass c);
// "RDMA", "PCIe", "GPU", "NVLink": the group a finding is printed in on screen.
std::string group_name(RuleClass c);
// What a rise is counted per: "per port", "per device", "per GPU", "per link".
std::string unit_of(RuleClass c);

enum class RuleKind {
  Rise,   // a counter: its rise over the before/after window, as rises per second
  State,  // a state seen in a snapshot (a port down, a link at reduced width, an XID)
};

struct Rule {
  std::string name;  // the counter as the kernel or NVML names it, or the state's name
  RuleClass cls = RuleClass::RdmaPort;
  RuleKind kind = RuleKind::Rise;
  // Rise: Fail: any rise fails; Warn: a rise faster than `limit` warns, slower is INFO;
  // Info: a rise is information only. State: the severity of the state when seen.
  Severity severity = Severity::Info;
  double limit = 0;         // Rise and Warn: rises per second per unit (0: any rise warns)
  bool per_minute = false;  // the limit is written per minute, as its source states it
  std::string source;       // where the limit (or the severity) comes from, short: "DCGM"
  std::string origin;       // "" for the built-in row, else "FILE:LINE" of a thresholds file

  // "limit 100/s", "limit 8/min", "any rise fails", "any rise warns", "information only"; ""
  // for a state.
  std::string limit_text() const;
  // What a finding of this rule says after its detail: "limit 100/s, DCGM", "any rise fails,
  // IBTA", "DCGM" (a state), "limit 50/s, set in thresholds.yaml:12".
  std::string said() const;
  // The severity of a rise of DELTA over SECONDS (0: one snapshot, any rise counts as fast).
  Severity judge_rise(std::uint64_t delta, double seconds) const;
};

// The built-in table.
const std::vector<Rule>& default_rules();

// XIDs that fail a run (rule xid_critical); any other XID is rule xid.
bool critical_xid(std::uint64_t xid);
const std::vector<std::uint64_t>& critical_xids();

// The rules in force: the built-in table with a thresholds file's changes.
class RuleBook {
 public:
  RuleBook();  // the built-in table
  // The row of NAME; every name the judges ask for is in the table (an absent one is a bug:
  // std::out_of_range).
  const Rule& at(const std::string& name) const;
  const Rule* find(const std::string& name) const;
  const std::vector<Rule>& rows() const { return rows_; }
  std::vector<Rule>& rows() { return rows_; }
  // The thresholds file the rules were read from; empty for the built-in table.
  const std::string& file() const { return file_; }
  void set_file(std::string path) { file_ = std::move(path); }

 private:
  std::vector<Rule> rows_;
  std::string file_;
};

// "512/s", "22/s", "4.2/s", "0.39/s", "16/min" (per_minute): whole from 10 up, else two
// significant figures.
std::string rate_text(double per_second, bool per_minute = false);

}  // namespace commsweep::health
