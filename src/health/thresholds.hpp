// The thresholds file a user tunes the health rules with (`--health-thresholds FILE`): YAML or
// JSON, read by the suite reader (suite/document.hpp: every value with its line) and checked
// with the settings entries' messages, so that every mistake names FILE:LINE and the key.
//
//   schema: commsweep.health-thresholds/1
//   rules:
//     nvlink_crc_data:          # a row of the rule table (rules.hpp)
//       severity: warn          # fail, warn or info
//       limit_per_second: 100   # or limit_per_minute; a rise faster than this warns
//
// A rule or key left out keeps the built-in value; results/health-thresholds.yaml is the whole
// built-in table as such a file.
#pragma once

#include <string>

#include "health/rules.hpp"

namespace commsweep::health {

inline constexpr const char* kThresholdsSchema = "commsweep.health-thresholds/1";

// The rules of the file at PATH. Throws a usage Error (exit 2) naming "--health-thresholds
// PATH:LINE" and what is wrong: an unreadable file, a syntax error, a wrong or missing schema
// line, an unknown key, an unknown rule (with the closest name), a severity that is not fail,
// warn or info, a negative or non-numeric limit, a limit where the severity is not warn. NAMED:
// how the path was given, "--health-thresholds" or "COMMSWEEP_HEALTH_THRESHOLDS=".
RuleBook read_thresholds_file(const std::string& path, const std::string& named = "--health-thresholds");
// The same for TEXT read from PATH (tests and the fuzz target).
RuleBook parse_thresholds(const std::string& path, const std::string& text,
                          const std::string& named = "--health-thresholds");

}  // namespace commsweep::health
