// The files `commsweep baseline` and `commsweep compare` read: results files
// (commsweep.results/2, and /1), and every workload's own --json document (a pairs or nvlink
// file) through the readers its registry entry gives (run/workload.hpp, sheet_readers), which
// the command passes down: this layer knows no workload's document.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/figure.hpp"
#include "report/result.hpp"

namespace commsweep::regress {

// DOC as a report::Results with its figures (report::results_with_figures): a results document,
// or a document of one of READERS' schemas with its provenance, ending, wrong total and health,
// its figures in Results::sheets. Throws std::runtime_error naming the field of a malformed
// document, and, for another schema, results_from_json's refusal.
report::Results run_from_json(const nlohmann::json& doc, const report::SheetReaders& readers);
// The same of the file at PATH, the errors prefixed with PATH.
report::Results read_run_file(const std::string& path, const report::SheetReaders& readers);

}  // namespace commsweep::regress
