// `commsweep pairs --json FILE`: schema commsweep.pairs/1 (results/schema/pairs.md and
// commsweep.pairs.v1.schema.json): provenance as in commsweep.results/1, the settings, the
// nodes, the rounds, every pair with every rail, the matrix, and the findings.
#pragma once

#include <nlohmann/json.hpp>

#include "pairs/outliers.hpp"
#include "pairs/record.hpp"

namespace commsweep::pairs {

nlohmann::json to_json(const PairsRun& run, const Analysis& analysis);

}  // namespace commsweep::pairs
