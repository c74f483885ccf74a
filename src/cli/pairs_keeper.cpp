#include "cli/pairs_keeper.hpp"

#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"

namespace commsweep {

void PairsKeeper::keep(const pairs::PairsRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_ = run;
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
