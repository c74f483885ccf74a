// The MoE dispatch / combine table, in the manner of nccl-tests: '#' header lines, one
// fixed-width, right-aligned row per configuration (12 whitespace-separated fields), and a
// footer with the verdict and the byte and time conventions behind the numbers.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::report {

struct EpTableHeader {
  std::string version_line;     // e.g. "commsweep version 0.1.0 (abc) backend nccl ..."
  std::string parameters_line;  // "nRanks 4 nHosts 1 ..."
  std::vector<std::string> device_lines;  // one per rank
};

// EXPECTED (--show-expected): after the back-to-back columns, each phase's expected time on this
// hardware (results/expected/ep.yaml) and its share of it, expected / time ("-" where no entry
// applies), as the collectives' table adds its expected busbw and ratios.
class EpTablePrinter {
 public:
  explicit EpTablePrinter(std::ostream& out, bool expected = false) : out_(out), expected_(expected) {}
  void header(const EpTableHeader& h);
  void note(const std::string& text);  // a '#' line
  void row(const EpRow& r);
  void footer(std::uint64_t wrong_total);

 private:
  std::ostream& out_;
  bool expected_;
};

// One data row (no newline): tokens hidden topk experts dtype routing, then time (us),
// bandwidth (GB/s, DeepEP's accounting) and #wrong for dispatch and for combine.
std::string format_ep_row(const EpRow& r);
// --show-expected's columns of R (no newline): dispatch's expected time and share, then combine's.
std::string format_ep_expected(const EpRow& r);

}  // namespace commsweep::report
