// `commsweep pairs --json FILE`: schema commsweep.pairs/2 (results/schema/pairs.md and
// commsweep.pairs.v2.schema.json): provenance as in commsweep.results/1, the settings, the
// pattern and topology, the nodes, the rounds, the pairs, the summaries and the findings.
#pragma once

#include <nlohmann/json.hpp>

#include "pairs/outliers.hpp"
#include "pairs/record.hpp"

namespace commsweep::pairs {

inline constexpr const char* kPairsSchema = "commsweep.pairs/2";

// Up to this many nodes the document is "full": every pair with every rail, every round's pairs,
// the node x node matrix (as schema 1). Above it "sparse": the slow pairs with their rails, the
// rounds' sizes, per-node and per-leaf summaries, the leaf x leaf matrix and the distribution;
// a few MB at 1,000 nodes instead of hundreds.
constexpr std::size_t kFullDetailNodes = 64;

bool full_detail(const PairsRun& run);
nlohmann::json to_json(const PairsRun& run, const Analysis& analysis);
// The document in full (FULL) or sparse detail, whatever the nodes.
nlohmann::json to_json(const PairsRun& run, const Analysis& analysis, bool full);

// The document the --html report is drawn from (report/sheet_html.hpp): in full up to this many
// nodes, so that its node x node heatmap has every pair (the --json file is full up to 64).
constexpr std::size_t kReportFullNodes = 128;
nlohmann::json report_json(const PairsRun& run, const Analysis& analysis);

}  // namespace commsweep::pairs
