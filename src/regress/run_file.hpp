// The files `commsweep baseline` and `commsweep compare` read: results files
// (commsweep.results/2, and /1), and the --json of `commsweep nvlink` (commsweep.nvlink/1) and
// of `commsweep pairs` (commsweep.pairs/2), whose pairs they judge too (regress/matrices.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/result.hpp"

namespace commsweep::regress {

// DOC as a report::Results: a results document as report::results_from_json reads it; an nvlink
// or pairs document with its provenance, ending, wrong total and health, the document itself in
// Results::nvlink or Results::pairs. Throws std::runtime_error naming the field of a malformed
// document, and, for another schema, results_from_json's refusal.
report::Results run_from_json(const nlohmann::json& doc);
// The same of the file at PATH, the errors prefixed with PATH.
report::Results read_run_file(const std::string& path);

}  // namespace commsweep::regress
