// What rank 0 has measured, kept for a run that ends early. The commands hand each measurement
// to their keeper as they print it; when the job is ended by a timeout verdict, by an error on
// any rank or by the watchdog (World::abort), or stops on an out-of-memory every rank agreed on,
// World says the keeper's last words: what was kept goes to --json as an incomplete file
// (complete: false, interrupted_by "timeout" / "error" / "out of memory", summary.failure
// saying what happened and on which rank). Nothing is written when nothing was measured. The
// final file goes through the keeper too, after which its last words say nothing.
//   Keeper          the mechanism: the lock, the once-only write, the last words
//   ResultsKeeper   the sweeps, ep and suite (commsweep.results/1 rows)
//   DocumentKeeper  the document of a workload run alone that has one: pairs, nvlink
//                   (run/document_keeper.hpp)
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "report/result.hpp"

namespace commsweep {

class World;

class Keeper {
 public:
  explicit Keeper(std::string path) : path_(std::move(path)) {}
  virtual ~Keeper() = default;
  Keeper(const Keeper&) = delete;
  Keeper& operator=(const Keeper&) = delete;

  // The last words: what was kept so far, marked incomplete, written atomically and said on
  // stderr. Once, and never after the final file.
  void write_incomplete(const std::string& cause, const std::string& message);
  // A top-level member every document written from now on carries (pairs' "health"); a
  // member of that name the document has already is left as it is.
  void attach(const std::string& key, nlohmann::json value);

  // On the first SIGTERM / SIGINT (runtime/termination.hpp, on the signal's thread): what was
  // kept so far (perhaps nothing yet), marked incomplete (interrupted_by CAUSE), written at once
  // and said on stderr, because mpirun kills the ranks a second after forwarding the signal
  // (and may no longer pass their output on: the file is the message that always arrives).
  // Unlike the last words the final file may still follow (it holds the same rows, and any
  // finished since); after the final file it does nothing.
  void write_interrupted(const std::string& cause, const std::string& description);

 protected:
  // With mutex_ held: after write_interrupted wrote a file, the rows finished since are
  // added to it at once too (mpirun may kill the job before the final file).
  void rewrite_if_interrupted();

  // With mutex_ held: DOC to the path atomically, said on stdout ("# Results written to
  // PATH"), after which the last words say nothing; a failure is a runtime Error naming --json.
  void write(const nlohmann::json& doc);
  // The same without the line on stdout, and without closing the door on later writes.
  void write_quietly(const nlohmann::json& doc);
  std::mutex mutex_;  // the main thread keeps; the last words may come from the watchdog's

 private:
  // With mutex_ held: how many measurements are kept, what one is ("row"), and the
  // document that says they are all there is.
  virtual std::size_t measured() const = 0;
  virtual const char* unit() const = 0;
  virtual nlohmann::json incomplete(const std::string& cause, const std::string& message) const = 0;

  std::string path_;
  bool written_ = false;
  nlohmann::json attached_ = nlohmann::json::object();
  std::string interrupted_cause_, interrupted_description_;  // set once write_interrupted wrote
};

// Whether this rank keeps what is measured: rank 0, with --json PATH.
bool keeps_results(const World& world, const std::string& path);
// Registers KEEPER's write_incomplete as WORLD's last words and its write_interrupted as the
// action on a termination signal (main's guard clears both when the command returns).
void register_last_words(World& world, const std::shared_ptr<Keeper>& keeper);

// Rank 0 with --json: a K (ResultsKeeper, a DocumentKeeper) for this run, made of PATH and ARGS and
// registered as the World's last words. Null on other ranks and without --json.
// Rank 0 without --json: a termination signal is answered with a line saying the rows are
// only in the table (there is no file to keep them in).
void say_nothing_is_kept(const World& world);
// Rank 0 before a command measures: a termination signal during the set-up is answered with
// a line saying that nothing was measured yet.
void say_interrupted_in_set_up(const World& world);

template <typename K, typename... Args>
std::shared_ptr<K> make_keeper(World& world, const std::string& path, Args&&... args) {
  if (!keeps_results(world, path)) {
    say_nothing_is_kept(world);
    return nullptr;
  }
  auto keeper = std::make_shared<K>(path, std::forward<Args>(args)...);
  register_last_words(world, keeper);
  return keeper;
}

class ResultsKeeper final : public Keeper {
 public:
  // HEADER: the provenance and transport of the run, written with the rows.
  using Record = report::Results;
  ResultsKeeper(std::string path, report::Results header);
  void add(const report::ResultRow& row);
  void add(const report::EpRow& row);
  // A suite's sweep of a workload with a document of its own (pairs, nvlink), once it has ended
  // and reported: that document (run/measure.cpp).
  void add_document(const nlohmann::json& document);
  // The run's full header once the set-up has made it (the keeper may be made before, so that
  // a signal during the set-up still leaves a file saying so); the rows kept stay.
  void set_header(report::Results header);
  void write_final(const report::Results& results);

 private:
  std::size_t measured() const override { return kept_.rows.size() + kept_.ep_rows.size() + kept_.documents.size(); }
  const char* unit() const override { return "row"; }
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override;
  report::Results kept_;
};

}  // namespace commsweep
