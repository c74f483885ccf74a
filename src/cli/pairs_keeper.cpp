#include "cli/pairs_keeper.hpp"

#include <utility>

#include "cli/results_keeper.hpp"
#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "runtime/world.hpp"

namespace commsweep {

void PairsKeeper::keep(const pairs::PairsRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_ = run;
}

void PairsKeeper::write_final(const pairs::PairsRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  written_ = true;
  write_json_file(path_, pairs::to_json(run, pairs::analyse(run)));
}

void PairsKeeper::write_incomplete(const std::string& cause, const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (written_ || kept_.pairs.empty()) return;
  written_ = true;
  pairs::PairsRun r = kept_;
  r.complete = false;
  r.interrupted_by = cause;
  r.failure = message;
  write_json_file(path_, pairs::to_json(r, pairs::analyse(r)));
  say_kept(r.pairs.size(), "pair(s)", cause, path_);
}

std::shared_ptr<PairsKeeper> keep_pairs(World& world, const std::string& path) {
  if (world.rank() != 0 || path.empty()) return nullptr;
  auto keeper = std::make_shared<PairsKeeper>(path);
  world.set_last_words([keeper](const std::string& cause, const std::string& message) {
    keeper->write_incomplete(cause, message);
  });
  return keeper;
}

}  // namespace commsweep
