// The Keeper (run/results_keeper.hpp) of a workload whose --json file is one document of its
// own (pairs, nvlink, a test's workload): what rank 0 has measured so far, written as that
// document marked incomplete (complete false, interrupted_by, failure) when the job ends early,
// and the final file through the same door. FORM says what is particular, as static members:
//   using Record = ...;  the run as it stands; it has `complete`, `interrupted_by` and `failure`
//   static constexpr const char* kUnit;  what one measurement is: "pair", "node"
//   static std::size_t measured(const Record&);  how many are kept (nothing is written at 0)
//   static nlohmann::json document(const Record&);  the file: the record and its analysis
//   static void update(Record& kept, const Record& now);  after each step (a copy, or less)
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "run/results_keeper.hpp"

namespace commsweep {

template <typename Form>
class DocumentKeeper final : public Keeper {
 public:
  using Record = typename Form::Record;
  // EARLY: what is known before the set-up (its nodes and settings), so that a file written
  // before the first measurement is a whole document (run/measuring_run.hpp).
  DocumentKeeper(std::string path, Record early) : Keeper(std::move(path)), kept_(std::move(early)) {}
  // After each step: the run as it stands.
  void keep(const Record& run) {
    const std::lock_guard<std::mutex> lock(mutex_);
    Form::update(kept_, run);
    rewrite_if_interrupted();
  }
  // The run's own file, DOCUMENT made by the command with the analysis it printed.
  void write_final(const nlohmann::json& document) {
    const std::lock_guard<std::mutex> lock(mutex_);
    write(document);
  }

 private:
  std::size_t measured() const override { return Form::measured(kept_); }
  const char* unit() const override { return Form::kUnit; }
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override {
    Record r = kept_;
    r.complete = false;
    r.interrupted_by = cause;
    r.failure = message;
    return Form::document(r);
  }
  Record kept_;
};

}  // namespace commsweep
