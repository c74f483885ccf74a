// `commsweep compare`'s flags and --help (cli/compare_command.cpp runs it).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace commsweep {

struct CompareOptions {
  std::vector<std::string> results;
  std::string baseline, history, markdown, html, prometheus, json, mode, health_thresholds;
  bool record = false;
  bool allow_mismatch = false;
  bool quiet = false;
  std::size_t history_runs = 10;
};

// The flags, bound to O's fields.
boost::program_options::options_description compare_flags(CompareOptions& o);
// --help: the flags D and what compare judges, and its exit codes.
std::string compare_help(const boost::program_options::options_description& d);

}  // namespace commsweep
