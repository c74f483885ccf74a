// The results history: a folder with one file per run, named <UTC start>-<test id>.json
// (20261121T031500Z-all.json), never overwritten, that a PVC or an object store can hold.
// Names sort by time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/figure.hpp"
#include "report/result.hpp"

namespace commsweep::regress {

// "all" for a run of every collective (COLLECTIVES: how many `commsweep all` names, the
// registry's count, which this pure layer cannot see), "ep", "nvlink" or "pairs" (their files),
// or the tests joined with '+' ("all_reduce+sendrecv").
std::string test_id(const report::Results& results, std::size_t collectives);
// "<YYYYMMDDTHHMMSSZ>-<test id>.json" from provenance.started_at.
std::string history_file_name(const report::Results& results, std::size_t collectives);

// Adds `text` (a results file's content) to `dir` as history_file_name; throws naming the
// path when that name is taken (a run is recorded once) or the write fails. Returns the path.
std::string record_in_history(const std::string& dir, const report::Results& results, const std::string& text,
                              std::size_t collectives);

struct HistoryFile {
  std::string name;
  report::Results results;
};

// The newest `limit` runs of `dir` (by name) with the given test id, oldest first, without
// the file named `except`. Throws naming the file on one that cannot be read.
// READERS: the workloads' document readers (run/workload.hpp, sheet_readers).
std::vector<HistoryFile> read_history(const std::string& dir, const std::string& id,
                                      const std::string& except, std::size_t limit,
                                      const report::SheetReaders& readers);

}  // namespace commsweep::regress
