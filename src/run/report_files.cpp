#include "run/report_files.hpp"

#include <functional>

#include "core/error.hpp"
#include "output/output_file.hpp"
#include "report/sheet_html.hpp"
#include "report/sheet_prometheus.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace {

using settings::Given;
using settings::Value;

// A report file's path: a name, never empty (an empty --html would be a write error at the end).
std::function<void(ReportFiles&, const Value&, const Given&)> path_into(std::string ReportFiles::*field) {
  return [field](ReportFiles& f, const Value& v, const Given& g) {
    if (v.text.empty()) throw_usage(g.where + ": give a file name");
    f.*field = v.text;
  };
}

// Its suite key (a sweep's own file), as the flag.
settings::Spec keyed(settings::Spec spec) {
  spec.key = spec.flag;
  return spec;
}

settings::Table<ReportFiles> make_report_files_table() {
  const char* section = kReportFilesSection;
  return {"reports", {
      settings::entry_of<ReportFiles>(
          keyed(settings::shared::html("write a self-contained HTML report of its figures here: a heatmap per matrix "
                                       "(rows grouped where it has groups), the findings, the lowest figures",
                                       section)),
          path_into(&ReportFiles::html_path)),
      settings::entry_of<ReportFiles>(
          keyed(settings::shared::prometheus("write its figures as Prometheus metrics here (text format for "
                                             "node-exporter's textfile collector), with its slow verdicts and exit code",
                                             section)),
          path_into(&ReportFiles::prometheus_path)),
  }, nullptr};
}

}  // namespace

const settings::Table<ReportFiles>& report_files_settings() {
  static const settings::Table<ReportFiles> table = make_report_files_table();
  return table;
}

void write_report_files(const ReportFiles& files, const report::Sheet& sheet, int exit_code, std::ostream& out) {
  if (!files.html_path.empty()) {
    output::write_output_file(files.html_path, report::render_sheet_html(sheet));
    out << "# HTML report written to " << files.html_path << "\n";
  }
  if (!files.prometheus_path.empty()) {
    output::write_output_file(files.prometheus_path, report::render_sheet_prometheus(sheet, exit_code));
    out << "# Prometheus metrics written to " << files.prometheus_path << "\n";
  }
  out << std::flush;
}

}  // namespace commsweep
