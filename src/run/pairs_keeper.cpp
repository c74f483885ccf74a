#include "run/pairs_keeper.hpp"

#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"

namespace commsweep {

nlohmann::json PairsDocument::document(const Record& r) { return pairs::to_json(r, pairs::analyse(r)); }

// After the first round only what changed is copied: a copy of the whole run after every round
// would cost rounds x pairs (quadratic: 999 rounds of up to 500,000 pairs at 1,000 nodes).
void PairsDocument::update(Record& kept, const Record& now) {
  // The first round's: the whole run (the early record had no GPUs, no full provenance).
  if (kept.pairs.empty() || kept.pairs.size() > now.pairs.size()) {
    kept = now;
    return;
  }
  kept.pairs.insert(kept.pairs.end(), now.pairs.begin() + static_cast<long>(kept.pairs.size()), now.pairs.end());
  if (kept.rounds.size() != now.rounds.size()) kept.rounds = now.rounds;  // follow-up rounds appended
  kept.round_wall_s = now.round_wall_s;
  kept.findings = now.findings;
  kept.complete = now.complete;
  kept.interrupted_by = now.interrupted_by;
}

}  // namespace commsweep
