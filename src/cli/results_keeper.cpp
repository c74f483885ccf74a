#include "cli/results_keeper.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "report/json.hpp"
#include "runtime/error.hpp"
#include "runtime/world.hpp"

namespace commsweep {

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  try {
    report::write_file_atomically(path, doc.dump(2) + "\n");
    std::cout << "# Results written to " << path << "\n";
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Runtime, std::string("--json: ") + e.what());
  }
}

void say_kept(std::size_t measured, const char* what, const std::string& cause, const std::string& path) {
  std::fprintf(stderr, "commsweep: rank 0: the %zu %s measured before the %s are kept in %s (complete: false)\n",
               measured, what, cause.c_str(), path.c_str());
  std::fflush(stderr);
}

ResultsKeeper::ResultsKeeper(std::string path, report::Results header)
    : path_(std::move(path)), kept_(std::move(header)) {
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
  written_ = true;
  write_json_file(path_, report::to_json(results));
}

void ResultsKeeper::write_incomplete(const std::string& cause, const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (written_ || (kept_.rows.empty() && kept_.ep_rows.empty())) return;
  written_ = true;
  report::Results r = kept_;
  r.complete = false;
  r.interrupted_by = cause;
  r.failure = message;
  r.wrong_total = report::wrong_elements(r.rows) + report::wrong_elements(r.ep_rows);
  r.avg_busbw_gbps = report::average_busbw(r.rows);
  write_json_file(path_, report::to_json(r));
  say_kept(r.rows.size() + r.ep_rows.size(), "row(s)", cause, path_);
}

std::shared_ptr<ResultsKeeper> keep_results(World& world, const std::string& path, report::Results header) {
  if (world.rank() != 0 || path.empty()) return nullptr;
  auto keeper = std::make_shared<ResultsKeeper>(path, std::move(header));
  world.set_last_words([keeper](const std::string& cause, const std::string& message) {
    keeper->write_incomplete(cause, message);
  });
  return keeper;
}

}  // namespace commsweep
