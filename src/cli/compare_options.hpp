// `commsweep compare`'s flags and --help (cli/compare_command.cpp runs it).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep {

struct CompareOptions {
  std::vector<std::string> results;
  std::string baseline, history, markdown, html, prometheus, json, mode, health_thresholds;
  bool record = false;
  bool allow_mismatch = false;
  bool quiet = false;
  bool help = false;
  std::size_t history_runs = 10;
};

// The flags (and the words, RESULTS), each applied to its field.
const settings::Table<CompareOptions>& compare_settings();
// The flags as --help lists them.
boost::program_options::options_description compare_flags();
// --help: the flags and what compare judges, and its exit codes.
std::string compare_help();

}  // namespace commsweep
