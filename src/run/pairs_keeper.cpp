#include "run/pairs_keeper.hpp"

#include <utility>

#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"

namespace commsweep {

PairsKeeper::PairsKeeper(std::string path, pairs::PairsRun early)
    : Keeper(std::move(path)), kept_(std::move(early)) {}

// After the first round only what changed is copied: a copy of the whole run after every round
// would cost rounds x pairs (quadratic: 999 rounds of up to 500,000 pairs at 1,000 nodes).
void PairsKeeper::keep(const pairs::PairsRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  // The first round's: the whole run (the early record had no GPUs, no full provenance).
  if (kept_.pairs.empty() || kept_.pairs.size() > run.pairs.size()) {
    kept_ = run;
  } else {
    kept_.pairs.insert(kept_.pairs.end(), run.pairs.begin() + static_cast<long>(kept_.pairs.size()), run.pairs.end());
    if (kept_.rounds.size() != run.rounds.size()) kept_.rounds = run.rounds;  // follow-up rounds appended
    kept_.round_wall_s = run.round_wall_s;
    kept_.findings = run.findings;
    kept_.complete = run.complete;
    kept_.interrupted_by = run.interrupted_by;
  }
  rewrite_if_interrupted();
}

void PairsKeeper::write_final(const pairs::PairsRun& run, const pairs::Analysis& analysis) {
  const std::lock_guard<std::mutex> lock(mutex_);
  write(pairs::to_json(run, analysis));
}

nlohmann::json PairsKeeper::incomplete(const std::string& cause, const std::string& message) const {
  pairs::PairsRun r = kept_;
  r.complete = false;
  r.interrupted_by = cause;
  r.failure = message;
  return pairs::to_json(r, pairs::analyse(r));
}

}  // namespace commsweep
