// The Keeper (run/results_keeper.hpp) of a workload run alone whose --json file is one document
// of its own (Workload::schema: pairs, nvlink, a test's grid): the one keeper of such documents,
// made by the one lifecycle (run/measuring_run.hpp) as it makes the ResultsKeeper of the others.
// It holds what rank 0 has measured so far, written as the workload's document marked incomplete
// (complete false, interrupted_by, failure) when the job ends early, and the final file through
// the same door. The workload hands it its record: the planned one before the set-up
// (Measurement::plan_document), then after each step (Stage::document). Its FORM says what is
// particular, as static members:
//   using Record = ...;  the run as it stands; it has `provenance`, `complete`, `interrupted_by`
//                        and `failure`
//   static constexpr const char* kUnit;  what one measurement is: "pair", "node"
//   static std::size_t measured(const Record&);  how many are kept (nothing is written at 0)
//   static nlohmann::json document(const Record&);  the file: the record and its analysis
//   static void update(Record& kept, const Record& now);  after each step (a copy, or less)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/result.hpp"
#include "run/results_keeper.hpp"

namespace commsweep {

// A workload with a document of its own, rank 0, once it has measured (Outcome::report):
// what it prints and the document it writes, and what they say of the run.
struct DocumentReport {
  nlohmann::json document;  // its schema's (Workload::schema); null: none
  std::uint64_t wrong = 0;  // wrong elements or bytes seen (exit code 8)
  int verdict = 0;          // its fabric verdict (a slow pair or link: 10), or 0
  // What --html and --prometheus are drawn from where it holds more than DOCUMENT (pairs from 65
  // to 128 nodes: every pair, for the heatmap, where the --json file keeps the slow ones); null:
  // DOCUMENT. The lifecycle writes both files from its figures (run/report_files.hpp).
  nlohmann::json drawn;
};
// HEALTH_FAIL: the health snapshots' FAIL lines, which its document names (empty in a suite,
// whose results file names them); its analysis printed to OUT.
using DocumentReporter = std::function<DocumentReport(const std::vector<std::string>& health_fail, std::ostream& out)>;

// What the keeper holds of a workload's record, whatever its type.
class KeptDocument {
 public:
  virtual ~KeptDocument() = default;
  virtual std::size_t measured() const = 0;
  virtual const char* unit() const = 0;
  // The document as it stands, marked incomplete by CAUSE ("SIGTERM", "timeout") with MESSAGE.
  virtual nlohmann::json incomplete(const std::string& cause, const std::string& message) const = 0;
};

template <typename Form>
class KeptDocumentOf final : public KeptDocument {
 public:
  using Record = typename Form::Record;
  explicit KeptDocumentOf(Record record) : kept_(std::move(record)) {}
  void update(const Record& now) { Form::update(kept_, now); }
  std::size_t measured() const override { return Form::measured(kept_); }
  const char* unit() const override { return Form::kUnit; }
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override {
    Record r = kept_;
    r.complete = false;
    r.interrupted_by = cause;
    r.failure = message;
    return Form::document(r);
  }

 private:
  Record kept_;
};

class DocumentKeeper final : public Keeper {
 public:
  // EARLY: the provenance known before the set-up (the build, the ranks, the arguments), which
  // the planned record carries.
  DocumentKeeper(std::string path, report::Provenance early) : Keeper(std::move(path)), early_(std::move(early)) {}

  // Before the set-up: the record as planned (its settings; pairs' nodes and rounds), so that a
  // signal during the set-up leaves a whole document of the workload's schema, saying that
  // nothing was measured.
  template <typename Form>
  void plan(typename Form::Record planned) {
    planned.provenance = early_;
    const std::lock_guard<std::mutex> lock(mutex_);
    kept_ = std::make_unique<KeptDocumentOf<Form>>(std::move(planned));
  }
  // After each step: the run as it stands.
  template <typename Form>
  void keep(const typename Form::Record& now) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto* kept = dynamic_cast<KeptDocumentOf<Form>*>(kept_.get())) {
      kept->update(now);
    } else {
      kept_ = std::make_unique<KeptDocumentOf<Form>>(now);
    }
    rewrite_if_interrupted();
  }
  // The run's own file: DOCUMENT as the workload made it with the analysis it printed.
  void write_final(const nlohmann::json& document) {
    const std::lock_guard<std::mutex> lock(mutex_);
    write(document);
  }

 private:
  std::size_t measured() const override { return kept_ ? kept_->measured() : 0; }
  const char* unit() const override { return kept_ ? kept_->unit() : "measurement"; }
  // Null before the workload planned its record: there is no document to write yet.
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override {
    return kept_ ? kept_->incomplete(cause, message) : nlohmann::json();
  }
  report::Provenance early_;
  std::unique_ptr<KeptDocument> kept_;
};

}  // namespace commsweep
