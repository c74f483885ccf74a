// The judgement of one run against a baseline: a verdict per measurement, the stragglers,
// and the exit code the nightly job ends with. Printers (regress/render_*) only read this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/exit_codes.hpp"
#include "regress/baseline.hpp"
#include "regress/measured_setup.hpp"
#include "regress/observation.hpp"

namespace commsweep::regress {

// Ordered by severity: a group's verdict is its worst member's. NotJudged: in the run, not in
// the baseline (nothing to judge it against): never a PASS, never a regression by itself.
enum class Verdict { NotJudged, Same, Pass, Warn, Fail };
inline constexpr int kVerdicts = 5;
const char* name_of(Verdict v);
// The Prometheus level (commsweep_verdict_level): 0 SAME, 1 PASS, 2 WARN, 3 FAIL, -1 not judged.
int level_of(Verdict v);

// 2: the verdict NOT_JUDGED (rows the baseline lacks, PASS in 1), counts.NOT_JUDGED, "setup".
inline constexpr const char* kCompareSchema = "commsweep.compare/2";

// Bandwidth: DeepEP's of an EP phase, or a matrix's GB/s (an nvlink pair or target, a node pair).
enum class Metric { Busbw, Time, Bandwidth, None };
const char* name_of(Metric m);

struct Judgement {
  Key key;
  Verdict verdict = Verdict::NotJudged;
  Metric metric = Metric::None;
  bool has_baseline = false;
  bool missing = false;          // in the baseline, not in the run
  double baseline_value = 0;     // the metric's baseline median
  double value = 0;              // the run's median of the metric
  double change_pct = 0;         // value / baseline - 1, in percent (time: + is slower)
  double noise_pct = 0;          // the run-to-run spread the change is measured against
  double busbw_gbps = 0;         // the run's busbw (bandwidth for EP), for tables and plots
  std::uint64_t wrong = 0;
  std::string reason;
  int samples = 0;  // of the run, at this key (-N cycles, several results files)
  // Worse than the fail band by its change alone (not missing, wrong, or below a floor): such a
  // FAIL stands only where the row's other half agrees (one half alone is a moment's noise, a WARN).
  bool change_fail = false;
  // The tail rule (Rules::tail_fail_pct): the run's p99 (median over its samples) against the
  // baseline's; judged only where both have one, from small_message_bytes up.
  bool tail_judged = false;
  double tail_baseline_us = 0;
  double tail_us = 0;
  double tail_change_pct = 0;  // + is slower
  // The run's spread over its iterations at this key (the median over its samples of each
  // statistic; spikes summed), for the HTML report; iterations 0 where none were kept.
  struct Spread {
    int iterations = 0;
    double min_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, max_us = 0, cv_pct = 0;
    int spikes = 0;
  } spread;
};

struct Straggler {
  int rank = 0;
  std::string host;
  std::string gpu;        // PCI bus id, "-" without a GPU
  int outlier_samples = 0;
  int samples = 0;
  double worst_slower_pct = 0;  // the largest excess over the ranks' median
  std::string worst_at;         // describe(key) of that sample
};

// A hardware health finding of the judged run (its "health" member, health/report.hpp, as
// the CLI judged it again under the rules in force): a new WARN or FAIL (not "persistent": not
// already so before the run) is a regression, as a slower bus is; an INFO never is. (The run
// itself exited 6 for any FAIL, persistent or not: compare asks what is new against the baseline.)
struct HealthFinding {
  std::string severity;  // FAIL, WARN, INFO
  std::string host;
  std::string component;
  std::string counter;
  std::string detail;
  double delta = -1;     // the counter's rise; -1 for states and saturation
  std::string rule;      // the rule that made it a finding ("" in files written before the rule table)
  std::string limit;     // that rule's limit and its source: "limit 100/s, DCGM"
  double rate_per_s = -1;  // the rise per second of the window; -1 where none
};
// "nvlink_crc_data +3891, 512/s (rule nvlink_crc_data: limit 100/s, DCGM)".
std::string health_text(const HealthFinding& h);

struct Comparison {
  std::string results_file;
  std::string baseline_file;
  std::string shape;
  std::string mode;
  std::string started_at;
  std::vector<std::string> hosts;
  bool complete = true;
  // Why an incomplete run ended: "interrupted by SIGTERM", or "ended early by a timeout: rank 0
  // (host): ..." (the results' interrupted_by and summary.failure); "" when complete.
  std::string ended_by;
  Rules rules;
  std::vector<Judgement> judgements;  // in key order
  std::vector<Straggler> stragglers;
  int counts[kVerdicts] = {};         // by Verdict
  // Whether the run and the baseline measured the same thing (measured_setup.hpp): the
  // differences judged anyway (--allow-mismatch) and what could not be checked.
  SetupCheck setup;
  std::uint64_t wrong_total = 0;
  std::vector<HealthFinding> health;         // new WARN and FAIL findings only
  std::vector<std::string> health_evidence;  // the run's joined verdict lines, and compare's own
  // core/exit_codes.hpp's: 0 pass (WARN allowed), 8 wrong elements in the run (before the
  // rest), 9 a regression (a FAIL: worse than the fail band, below a floor, missing; or a new
  // health WARN or FAIL); bad input (2) never gets this far.
  int exit_code = exit_code::kOk;
};

Comparison compare(const report::Results& results, const Baseline& baseline);

inline int verdict_count(const Comparison& c, Verdict v) { return c.counts[static_cast<int>(v)]; }

}  // namespace commsweep::regress
