// JSON results (schema: results/schema/README.md): numbers as numbers, booleans as booleans,
// N/A as null. Written atomically: a temporary file in the same folder, then rename.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "report/result.hpp"

namespace commsweep::report {

nlohmann::json to_json(const Results& results);
// The `provenance` object of a results file; other documents (commsweep.pairs/1) carry it too.
nlohmann::json provenance_json(const Provenance& provenance);
// Its reader (throws std::runtime_error naming the field).
Provenance provenance_from_json(const nlohmann::json& j);
// Throws std::runtime_error naming the field when the document is not a commsweep result
// of this schema version.
Results results_from_json(const nlohmann::json& doc);
// The schema of a results document this commsweep reads (kResultsSchema, or kResultsSchemaV1,
// written before the "health" member), as results_from_json checks it for compare and health
// --judge; throws std::runtime_error naming any other (or none).
std::string readable_results_schema(const nlohmann::json& doc);

// The largest results or baseline file read: a long -N soak writes tens of megabytes; a bound
// keeps /dev/zero or a wrong file from growing a string until the process is killed.
constexpr std::size_t kMaxJsonFileBytes = std::size_t{256} << 20;
// Reads and parses a JSON file; throws std::runtime_error "<what>PATH: cannot read: why" (or
// "is a directory", "larger than"), or
// "PATH: not valid JSON: ..." (a number too large for a double included).
nlohmann::json read_json_file(const std::string& path, const std::string& what = "");
Results read_results_file(const std::string& path);

}  // namespace commsweep::report
