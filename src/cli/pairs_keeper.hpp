// What rank 0 of `commsweep pairs --json` has measured, kept for a job that ends early, as the
// sweeps' ResultsKeeper keeps their rows: when a timeout verdict, an error on any rank or the
// watchdog ends the job (World::abort), World says the keeper's last words and the rounds
// measured so far go to --json, marked incomplete (summary.complete false, interrupted_by
// "timeout" / "error", summary.failure saying what happened and on which rank); the matrix
// holds null for the pairs not measured. Nothing is written before the first round.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "pairs/record.hpp"

namespace commsweep {

class World;

class PairsKeeper {
 public:
  explicit PairsKeeper(std::string path) : path_(std::move(path)) {}
  // After each round: the run as it stands.
  void keep(const pairs::PairsRun& run);
  // The run's own file (a SIGTERM's incomplete one included), written atomically.
  void write_final(const pairs::PairsRun& run);
  // The last words: the rounds kept so far, marked incomplete. Once, and never after write_final.
  void write_incomplete(const std::string& cause, const std::string& message);

 private:
  std::mutex mutex_;  // rounds are kept by the main thread; the last words may come from the watchdog's
  std::string path_;
  pairs::PairsRun kept_;
  bool written_ = false;
};

// Rank 0 with --json: a keeper, registered as the World's last words (main's guard clears them
// when the command returns). Null on other ranks and without --json.
std::shared_ptr<PairsKeeper> keep_pairs(World& world, const std::string& path);

}  // namespace commsweep
