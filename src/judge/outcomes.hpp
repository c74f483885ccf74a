// What one run or one comparison ended with, combined into the one exit code (issue 43, "one
// judge"): every command that judges says which of these it found and asks exit_code_of, so
// that no command orders them itself. The codes and their order are core/exit_codes.hpp's
// table (docs/failures.md, "Exit codes"); this is the one place a command's findings meet it.
#pragma once

#include <cstdint>

namespace commsweep::judge {

struct Outcomes {
  bool wrong_data = false;     // 8: wrong elements (or bytes) in the run, or in the file compared
  bool interrupted = false;    // 5: the run did not finish (a signal): its rows so far kept
  bool output_failed = false;  // 11: an output could not be written
  bool health_fail = false;    // 6: a health FAIL (a check, or the snapshots around a run)
  bool regression = false;     // 9: worse than the baseline (compare)
  bool slow = false;           // 10: a slow pair, link or GPU; a figure below its expected FAIL floor
  bool noisy = false;          // 12: a change the run's own noise could explain (compare)
};

// The ending every measuring run judges: WRONG_TOTAL wrong elements, whether it COMPLETEd, and a
// HEALTH_FAIL in the snapshots around it.
Outcomes run_ending(std::uint64_t wrong_total, bool complete, bool health_fail);

// The exit code of OUTCOMES: the first of core/exit_codes.hpp's precedence that applies, else 0.
int exit_code_of(const Outcomes& outcomes);

}  // namespace commsweep::judge
