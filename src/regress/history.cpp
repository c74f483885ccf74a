#include "regress/history.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "output/output_file.hpp"
#include "regress/run_file.hpp"

namespace commsweep::regress {
namespace fs = std::filesystem;

std::string test_id(const report::Results& r, std::size_t collectives) {
  if (!r.ep_rows.empty() && r.rows.empty()) return "ep";
  if (r.rows.empty() && !r.sheets.empty()) {  // a workload's own document(s): "nvlink", "nvlink+pairs"
    std::set<std::string> workloads;
    for (const auto& sheet : r.sheets) workloads.insert(sheet->workload);
    std::string id;
    for (const auto& w : workloads) id += (id.empty() ? "" : "+") + w;
    return id;
  }
  std::vector<std::string> tests;
  for (const auto& row : r.rows) {
    if (std::find(tests.begin(), tests.end(), row.test) == tests.end()) tests.push_back(row.test);
  }
  // Every collective of `commsweep all` (with ep too, as a suite of both runs them).
  if (collectives > 0 && tests.size() >= collectives) return "all";
  if (!r.ep_rows.empty()) tests.push_back("ep");
  std::string id;
  for (const auto& t : tests) id += (id.empty() ? "" : "+") + t;
  return id.empty() ? "empty" : id;
}

std::string history_file_name(const report::Results& r, std::size_t collectives) {
  std::string stamp;
  for (char c : r.provenance.started_at) {
    if (c != '-' && c != ':') stamp += c;
  }
  if (stamp.empty()) stamp = "unknown";
  return stamp + "-" + test_id(r, collectives) + ".json";
}

std::string record_in_history(const std::string& dir, const report::Results& results, const std::string& text,
                              std::size_t collectives) {
  const std::string path = (fs::path(dir) / history_file_name(results, collectives)).string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create history folder " + dir + ": " + ec.message());
  // Written atomically under a temporary name, then hard-linked to its name: link() fails
  // on a name that exists, so a recorded run is never overwritten, even by a racing job.
  const std::string tmp = path + ".partial";
  output::write_output_file(tmp, text);
  if (link(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = errno == EEXIST ? "a run with this start time and test id is already recorded"
                                               : std::strerror(errno);
    unlink(tmp.c_str());
    throw std::runtime_error("cannot record " + path + ": " + reason);
  }
  unlink(tmp.c_str());
  return path;
}

std::vector<HistoryFile> read_history(const std::string& dir, const std::string& id,
                                      const std::string& except, std::size_t limit,
                                      const report::SheetReaders& readers) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("--history " + dir + ": not a folder");
  std::set<std::string> names;
  const std::string suffix = "-" + id + ".json";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        name != except) {
      names.insert(name);
    }
  }
  std::vector<std::string> chosen(names.begin(), names.end());
  if (chosen.size() > limit) chosen.erase(chosen.begin(), chosen.end() - static_cast<long>(limit));
  std::vector<HistoryFile> out;
  for (const auto& name : chosen) out.push_back({name, read_run_file((fs::path(dir) / name).string(), readers)});
  return out;
}

}  // namespace commsweep::regress
