// The settings of every measuring run (`commsweep TEST...`, `ep`, `pairs`, `suite`, and every
// workload registered): one table (settings/setting.hpp) for the backend, the results file, the
// node shape, the timeout, the fabric flags and the health flags, so that every command takes them alike, lists
// them alike in --help and refuses them with the same messages, before its own settings.
#pragma once

#include <string>

#include "comm/make_backend.hpp"
#include "run/fabric_run_options.hpp"
#include "run/report_files.hpp"
#include "topology/run/run_topology.hpp"
#include "settings/setting.hpp"

namespace commsweep {

struct RunSettings {
  BackendChoice backend = BackendChoice::Auto;  // --backend
  std::string json_path;                         // --json, or empty
  TopologyRequest topology;                      // --shape, --force
  double timeout_s = 300;                        // -T: every phase of the set-up and of the run
  // --no-preflight, --require-transport, --require-gdr, --bind, --health-thresholds, --health-verbose
  FabricRunOptions fabric;
  // --html, --prometheus: a workload with a document of its own only (its table is
  // run/report_files.hpp's, read by read_report_files, not this table's), a suite's per sweep.
  ReportFiles reports;
};

// Sections of --help the entries are listed under.
inline constexpr const char* kRunSettingsSection = "run";
inline constexpr const char* kFabricSection = "fabric";

const settings::Table<RunSettings>& run_settings();

// The run's settings: FLAGS (given on the command line) over DOCUMENT's keys (a suite sweep's
// "timeout"; the other run settings have no key) over the defaults. Throws a usage Error naming
// the flag (or the file, line and key).
RunSettings read_run_settings(const settings::Flags& flags, const settings::DocumentEntry* document = nullptr);

}  // namespace commsweep
