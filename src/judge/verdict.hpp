// The verdict words of every judge (issue 43, "one judge"): compare's against a baseline, the
// expected figures' against their floors, and what the printers (tables, JSON, Prometheus) say
// of them. A health finding's INFO, WARN and FAIL (health/rules.hpp) and a workload's slow pair
// (a figure's `slow`, report/figure.hpp) are said in the same words where they meet these.
#pragma once

namespace commsweep::judge {

// Ordered by severity: a group's verdict is its worst member's. NotJudged: nothing to judge it
// against (in the run, not in the baseline): never a PASS, never a failure by itself. Noisy
// ("NOISY: not judged"): worse than the fail band by its change alone, but by less than the noise
// the run and its reference showed of themselves: said so (exit 12), not judged a failure.
// The expected figures' judge gives Pass, Warn or Fail only.
enum class Verdict { NotJudged, Same, Pass, Warn, Noisy, Fail };
inline constexpr int kVerdicts = 6;

// "NOT_JUDGED", "SAME", "PASS", "WARN", "NOISY", "FAIL".
const char* name_of(Verdict v);
// The Prometheus level (commsweep_verdict_level): 0 SAME, 1 PASS, 2 WARN, 3 FAIL, -1 not judged,
// -2 NOISY (not judged: the run too noisy for its change).
int level_of(Verdict v);

}  // namespace commsweep::judge
