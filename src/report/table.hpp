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

// Columns after nccl-tests' own, each behind a flag so that by default every line is
// nccl-tests' layout: --show-algo (what NCCL chose, out-of-place half; the in-place half's
// choice follows only where it differs), --show-iterations (per half the per-iteration
// statistics, then the slowest rank of each half), --show-expected (the expected busbw of the
// size on this hardware, and each half's busbw as a ratio of it: results/expected/).
struct TableColumns {
  bool algo = false;
  bool iterations = false;
  bool expected = false;  // --show-expected: the expected busbw, then each half's ratio to it
};

class TablePrinter {
 public:
  explicit TablePrinter(std::ostream& out, TableColumns columns = {}) : out_(out), columns_(columns) {}
  void header(const TableHeader& h);
  void note(const std::string& text);  // a '#' line
  void row(const ResultRow& r);
  void footer(const std::string& test, std::uint64_t wrong_total, double avg_busbw_gbps);

 private:
  std::ostream& out_;
  TableColumns columns_;
};

// One data row exactly as nccl-tests prints it (no newline).
std::string format_row(const ResultRow& r);
// The columns COLUMNS adds after it ("" when none).
std::string format_extra(const ResultRow& r, const TableColumns& columns);
// Their two header lines' tails (names, units), aligned with format_extra.
std::string extra_header(const TableColumns& columns, bool units);
// nccl-tests' time column: 7 wide, fewer decimals as the number grows.
std::string format_time(double us);
// nccl-tests' number columns: `width` wide, two decimals, fewer when the number would overflow
// the column, then an exponent, so that every column stays where parsers expect it.
std::string fit_column(double value, int width);

}  // namespace commsweep::report
