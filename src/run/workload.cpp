#include "run/workload.hpp"

#include <stdexcept>

namespace commsweep {

// workloads() is generated from the files in run/workloads/ (workloads_table.cpp.in).

const Workload* find_workload(std::string_view kind) {
  for (const Workload* w : workloads()) {
    if (w->name == kind) return w;
  }
  return nullptr;
}

const Workload* find_command_workload(std::string_view command) {
  if (command.empty()) return nullptr;
  for (const Workload* w : workloads()) {
    if (w->command == command) return w;
  }
  return nullptr;
}

const Workload& default_workload() {
  for (const Workload* w : workloads()) {
    if (w->command.empty()) return *w;
  }
  throw std::logic_error("no workload runs `commsweep TEST...` (run/workloads/)");
}

std::vector<const settings::Spec*> document_specs(const Workload& w) {
  if (w.schema.empty()) return {};
  return report_files_settings().specs();
}

ReportFiles read_report_files(const Workload& w, const settings::Flags& flags, const settings::DocumentEntry* document) {
  ReportFiles files;
  if (!w.schema.empty()) settings::apply(report_files_settings(), files, flags, document);
  return files;
}

std::vector<const settings::Spec*> entry_specs(const Workload& w) {
  std::vector<const settings::Spec*> all = w.specs();
  for (const settings::Spec* s : document_specs(w)) all.push_back(s);
  for (const settings::Spec* s : run_settings().specs()) all.push_back(s);
  return all;
}

report::SheetReaders sheet_readers() {
  report::SheetReaders readers;
  for (const Workload* w : workloads()) {
    if (w->figures && !w->schema.empty()) readers.push_back({std::string(w->name), std::string(w->schema), w->figures});
  }
  return readers;
}

}  // namespace commsweep
