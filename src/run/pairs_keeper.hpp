// What rank 0 of `commsweep pairs --json` has measured, kept for a job that ends early (the
// Keeper of run/results_keeper.hpp): the rounds measured so far go to --json, marked
// incomplete (summary.complete false, interrupted_by "timeout" / "error", summary.failure);
// the matrix holds null for the pairs not measured. Nothing is written before the first round.
#pragma once

#include <cstddef>
#include <string>

#include "run/results_keeper.hpp"
#include "pairs/outliers.hpp"
#include "pairs/record.hpp"

namespace commsweep {

class PairsKeeper final : public Keeper {
 public:
  using Record = pairs::PairsRun;
  // EARLY: what is known of the run before the set-up (run/measuring_run.hpp): its nodes,
  // rounds and settings, so that a file written before the first round is a whole document.
  PairsKeeper(std::string path, pairs::PairsRun early);
  // After each round: the run as it stands.
  void keep(const pairs::PairsRun& run);
  // The run's own file (a SIGTERM's incomplete one included), with its analysis.
  void write_final(const pairs::PairsRun& run, const pairs::Analysis& analysis);

 private:
  std::size_t measured() const override { return kept_.pairs.size(); }
  const char* unit() const override { return "pair"; }
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override;
  pairs::PairsRun kept_;
};

}  // namespace commsweep
