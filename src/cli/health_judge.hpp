// `commsweep health --judge FILE`: the snapshots a results file, a pairs file or a health JSON
// stored, judged again with the rules in force (the built-in table, or --health-thresholds),
// printed and written as `commsweep health` does. No MPI: it reads a file.
#pragma once

#include <ostream>
#include <string>

#include "health/report.hpp"

namespace commsweep {

struct JudgeRequest {
  std::string file;        // --judge
  std::string thresholds;  // --health-thresholds, or empty (COMMSWEEP_HEALTH_THRESHOLDS, else built in)
  std::string json, prometheus;
  bool verbose = false;
};

// Exit code 0, or 6 on a FAIL. A file that is not there, not JSON, of another schema, without
// a "health" member or without snapshots is a usage Error naming it and what is wrong.
int judge_stored_health(const JudgeRequest& request, std::ostream& out);

// The "health" member of the results, pairs or health JSON file at PATH (usage Errors as above).
nlohmann::json stored_health(const std::string& path);

// `commsweep health`'s ending: the inventory (VERBOSE), the block, the files; 0, or 6 on a FAIL
// or where a node read nothing (said on stderr, WHERE appended: where it looked and what to give
// instead), 2 where a file could not be written.
int print_and_write(const health::HealthReport& report, bool verbose, const std::string& json,
                    const std::string& prometheus, std::ostream& out, const std::string& where = "");

}  // namespace commsweep
