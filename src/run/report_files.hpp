// --html FILE and --prometheus FILE of every workload with a document of its own
// (Workload::schema: pairs, nvlink, the test-only grid): its document's figures (its registry
// entry's `figures`, report/figure.hpp) drawn by the printers written once
// (report/sheet_html.hpp, report/sheet_prometheus.hpp). The flags are declared once
// (settings/shared_flags.hpp) in this one table, offered by every such workload (run/workload.hpp:
// document_specs) and written by the lifecycle (run/measure.cpp), alone and for a suite's sweep
// (its keys "html" and "prometheus"), and by `nvlink --judge`: a workload declares neither and
// writes neither.
#pragma once

#include <ostream>
#include <string>

#include "report/figure.hpp"
#include "settings/setting.hpp"

namespace commsweep {

struct ReportFiles {
  std::string html_path;        // --html, or empty
  std::string prometheus_path;  // --prometheus, or empty
  bool any() const { return !html_path.empty() || !prometheus_path.empty(); }
};

// The --help section they are listed under.
inline constexpr const char* kReportFilesSection = "reports";

const settings::Table<ReportFiles>& report_files_settings();

// FILES of SHEET (EXIT_CODE: the Prometheus gauge commsweep_<workload>_exit_code), each named on
// OUT once written; a file that cannot be written throws (exit code 11).
void write_report_files(const ReportFiles& files, const report::Sheet& sheet, int exit_code, std::ostream& out);

}  // namespace commsweep
