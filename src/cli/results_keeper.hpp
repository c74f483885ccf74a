// What rank 0 has measured, kept for a run that ends early. The sweeps add each row as they
// print it; when the job is ended by a timeout verdict, by an error on any rank or by the
// watchdog (World::abort), or stops on an out-of-memory every rank agreed on, World says the
// keeper's last words: the rows so far go to --json as an incomplete results file (complete:
// false, interrupted_by "timeout" / "error" / "out of memory", summary.failure saying what
// happened and on which rank). Nothing is written when no row was measured. The final results
// go through the keeper too, after which its last words say nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "report/result.hpp"

namespace commsweep {

class World;

class ResultsKeeper {
 public:
  // HEADER: the provenance and transport of the run, written with the rows.
  ResultsKeeper(std::string path, report::Results header);
  void add(const report::ResultRow& row);
  void add(const report::EpRow& row);
  // The run's own results, written (atomically) as every run writes them.
  void write_final(const report::Results& results);
  // The last words: the rows kept so far, marked incomplete. Once, and never after write_final.
  void write_incomplete(const std::string& cause, const std::string& message);

 private:
  std::mutex mutex_;  // rows are added by the main thread; the last words may come from the watchdog's
  std::string path_;
  report::Results kept_;
  bool written_ = false;
};

// Rank 0 with --json: a keeper for this run, registered as the World's last words (main's
// guard clears them when the command returns). Null on other ranks and without --json.
std::shared_ptr<ResultsKeeper> keep_results(World& world, const std::string& path, report::Results header);

// For the keepers: DOC to PATH atomically, said on stdout ("# Results written to PATH"); a
// failure is a runtime Error naming --json.
void write_json_file(const std::string& path, const nlohmann::json& doc);
// On stderr: "commsweep: rank 0: the N WHAT measured before the CAUSE are kept in PATH ...".
void say_kept(std::size_t measured, const char* what, const std::string& cause, const std::string& path);

}  // namespace commsweep
