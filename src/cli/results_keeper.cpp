#include "cli/results_keeper.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "report/json.hpp"
#include "runtime/error.hpp"
#include "runtime/world.hpp"

namespace commsweep {

void Keeper::attach(const std::string& key, nlohmann::json value) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!value.is_null()) attached_[key] = std::move(value);
}

void Keeper::write(const nlohmann::json& doc) {
  written_ = true;
  nlohmann::json full = doc;
  for (const auto& [key, value] : attached_.items())
    if (full.is_object() && !full.contains(key)) full[key] = value;
  try {
    report::write_file_atomically(path_, full.dump(2) + "\n");
    std::cout << "# Results written to " << path_ << "\n";
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Runtime, std::string("--json: ") + e.what());
  }
}

void Keeper::write_incomplete(const std::string& cause, const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t n = measured();
  if (written_ || n == 0) return;
  write(incomplete(cause, message));
  std::fprintf(stderr, "commsweep: rank 0: the %zu %s measured before the %s are kept in %s (complete: false)\n",
               n, unit(), cause.c_str(), path_.c_str());
  std::fflush(stderr);
}

bool keeps_results(const World& world, const std::string& path) { return world.rank() == 0 && !path.empty(); }

void register_last_words(World& world, const std::shared_ptr<Keeper>& keeper) {
  world.set_last_words([keeper](const std::string& cause, const std::string& message) {
    keeper->write_incomplete(cause, message);
  });
}

ResultsKeeper::ResultsKeeper(std::string path, report::Results header)
    : Keeper(std::move(path)), kept_(std::move(header)) {
  kept_.rows.clear();
  kept_.ep_rows.clear();
}

void ResultsKeeper::add(const report::ResultRow& row) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.rows.push_back(row);
}

void ResultsKeeper::add(const report::EpRow& row) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.ep_rows.push_back(row);
}

void ResultsKeeper::write_final(const report::Results& results) {
  const std::lock_guard<std::mutex> lock(mutex_);
  write(report::to_json(results));
}

nlohmann::json ResultsKeeper::incomplete(const std::string& cause, const std::string& message) const {
  report::Results r = kept_;
  r.complete = false;
  r.interrupted_by = cause;
  r.failure = message;
  r.wrong_total = report::wrong_elements(r.rows) + report::wrong_elements(r.ep_rows);
  r.avg_busbw_gbps = report::average_busbw(r.rows);
  return report::to_json(r);
}

}  // namespace commsweep
