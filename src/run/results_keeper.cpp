#include "run/results_keeper.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "core/strings.hpp"
#include "output/output_file.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/termination.hpp"
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
  const std::string text = full.dump(2) + "\n";
  try {
    output::write_output_file(path_, text);
    std::cout << "# Results written to " << path_ << "\n";
  } catch (const std::runtime_error& e) {
    // --json was writable at the start (require_writable_results) and is not now (a full disk,
    // a FIFO nobody reads): the measurements are kept aside, and the message says where.
    std::string kept;
    try {
      kept = "; the results are kept in " + output::keep_aside(text, "commsweep-results") +
             " instead, so nothing is lost: move that file where it belongs";
    } catch (const std::runtime_error& aside) {
      kept = std::string("; keeping them aside failed too: ") + aside.what();
    }
    throw Error(ErrorKind::Output, std::string("--json: ") + e.what() + kept);
  }
}

void Keeper::write_quietly(const nlohmann::json& doc) {
  output::write_output_file(path_, doc.dump(2) + "\n");
}

void Keeper::rewrite_if_interrupted() {
  if (written_ || interrupted_cause_.empty()) return;
  try {
    write_quietly(incomplete(interrupted_cause_, interrupted_description_));
  } catch (const std::exception&) {
    // The first write said why it could not keep the rows; the final write will say it again.
  }
}

void Keeper::write_interrupted(const std::string& cause, const std::string& description) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (written_) return;
  const std::size_t n = measured();
  if (output::plan_for(path_).how != output::Plan::How::Atomic) {
    // A FIFO, a socket or a device is written once: the final write comes at the next step.
    std::fprintf(stderr, "commsweep: rank 0: %s: the %s measured so far go to %s when the sweep stops\n",
                 description.c_str(), count_of(n, unit()).c_str(), path_.c_str());
    std::fflush(stderr);
    return;
  }
  const nlohmann::json doc = incomplete(cause, n == 0 ? description + " before any " + unit() + " was measured" : description);
  if (doc.is_null()) {  // a workload's document not planned yet (run/document_keeper.hpp)
    std::fprintf(stderr, "commsweep: rank 0: %s before anything was measured: nothing to keep\n", description.c_str());
    std::fflush(stderr);
    return;
  }
  try {
    write_quietly(doc);
    interrupted_cause_ = cause;
    interrupted_description_ = description;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commsweep: rank 0: %s; the rows measured so far could not be kept: %s\n",
                 description.c_str(), e.what());
    std::fflush(stderr);
    return;
  }
  if (n == 0) {
    std::fprintf(stderr, "commsweep: rank 0: %s before any %s was measured: %s says so (no rows, complete: false)\n",
                 description.c_str(), unit(), path_.c_str());
  } else {
    std::fprintf(stderr, "commsweep: rank 0: %s: the %s measured so far %s kept in %s (complete: false)\n",
                 description.c_str(), count_of(n, unit()).c_str(), n == 1 ? "is" : "are", path_.c_str());
  }
  std::fflush(stderr);
}

void Keeper::write_incomplete(const std::string& cause, const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t n = measured();
  if (written_ || n == 0) return;
  write(incomplete(cause, message));
  std::fprintf(stderr, "commsweep: rank 0: the %s measured before the %s %s kept in %s (complete: false)\n",
               count_of(n, unit()).c_str(), cause.c_str(), n == 1 ? "is" : "are", path_.c_str());
  std::fflush(stderr);
}

bool keeps_results(const World& world, const std::string& path) { return world.rank() == 0 && !path.empty(); }

void register_last_words(World& world, const std::shared_ptr<Keeper>& keeper) {
  world.set_last_words([keeper](const std::string& cause, const std::string& message) {
    keeper->write_incomplete(cause, message);
  });
  on_termination([keeper] { keeper->write_interrupted(termination_signal_name(), termination_description()); });
}

namespace {
// On rank 0, once a SIGTERM or SIGINT arrives: "commsweep: rank 0: <what came>" and TAIL.
void say_on_termination(const World& world, const char* tail) {
  if (world.rank() != 0) return;
  on_termination([tail] {
    std::fprintf(stderr, "commsweep: rank 0: %s%s\n", termination_description().c_str(), tail);
    std::fflush(stderr);
  });
}
}  // namespace

void say_nothing_is_kept(const World& world) {
  say_on_termination(world, ": stopping at the next step (no --json: the rows measured are only in the table above)");
}

void say_interrupted_in_set_up(const World& world) {
  say_on_termination(world, " during the set-up, before anything was measured: nothing to keep");
}

ResultsKeeper::ResultsKeeper(std::string path, report::Results header)
    : Keeper(std::move(path)), kept_(std::move(header)) {
  kept_.rows.clear();
  kept_.ep_rows.clear();
  kept_.documents.clear();
}

void ResultsKeeper::add(const report::ResultRow& row) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.rows.push_back(row);
  rewrite_if_interrupted();
}

void ResultsKeeper::add(const report::EpRow& row) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.ep_rows.push_back(row);
  rewrite_if_interrupted();
}

void ResultsKeeper::add_document(const nlohmann::json& document) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.documents.push_back(document);
  rewrite_if_interrupted();
}

void ResultsKeeper::set_header(report::Results header) {
  const std::lock_guard<std::mutex> lock(mutex_);
  header.rows = std::move(kept_.rows);
  header.ep_rows = std::move(kept_.ep_rows);
  header.documents = std::move(kept_.documents);
  kept_ = std::move(header);
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
