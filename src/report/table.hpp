// The table in the layout of nccl-tests 2.19, so that tools which parse nccl-tests output read
// ours unchanged: '#' header lines, one row per size, the '# Out of bounds values' and
// '# Avg bus bandwidth' footers.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::report {

struct TableHeader {
  std::string test;  // "all_reduce"
  std::string version_line;  // e.g. "commsweep 0.1.0 (abc) backend nccl nccl-headers=22809 ..."
  std::string parameters_line;  // "nRanks 4 ... minBytes 8 maxBytes ..."
  std::vector<std::string> device_lines;  // one per rank
};

class TablePrinter {
 public:
  explicit TablePrinter(std::ostream& out) : out_(out) {}
  void header(const TableHeader& h);
  void note(const std::string& text);  // a '#' line
  void row(const ResultRow& r);
  void footer(const std::string& test, std::uint64_t wrong_total, double avg_busbw_gbps);

 private:
  std::ostream& out_;
};

// One data row exactly as nccl-tests prints it (no newline).
std::string format_row(const ResultRow& r);
// nccl-tests' time column: 7 wide, fewer decimals as the number grows.
std::string format_time(double us);
// nccl-tests' number columns: `width` wide, two decimals, fewer when the number would overflow
// the column, then an exponent, so that every column stays where parsers expect it.
std::string fit_column(double value, int width);

}  // namespace commsweep::report
