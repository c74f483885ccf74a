// Snapshots and findings as JSON (the "health" member of a results or pairs file; schema in
// results/schema/health.md), and back: rank 0 gathers each reader rank's snapshot as text.
#pragma once

#include <nlohmann/json.hpp>

#include "health/findings.hpp"
#include "health/records.hpp"

namespace commsweep::health {

nlohmann::json to_json(const Snapshot& s);
// Throws std::runtime_error naming the key on a malformed document.
Snapshot snapshot_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Finding& f);
Finding finding_from_json(const nlohmann::json& j);
Severity severity_from_string(const std::string& s);

}  // namespace commsweep::health
