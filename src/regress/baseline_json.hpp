// Baseline files: JSON in and out. Reading checks every field and names the one that is
// missing or of the wrong type ("rules.warn_pct: missing"); the caller adds the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "regress/baseline.hpp"

namespace commsweep::regress {

nlohmann::json to_json(const Baseline& baseline);
// Throws std::runtime_error naming the field.
Baseline baseline_from_json(const nlohmann::json& doc);
// Throws std::runtime_error naming the file and the field.
Baseline read_baseline_file(const std::string& path);

}  // namespace commsweep::regress
