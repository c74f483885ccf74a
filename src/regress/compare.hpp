// The judgement of one run against a baseline: a verdict per measurement, the stragglers,
// and the exit code the nightly job ends with. Printers (regress/render_*) only read this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/exit_codes.hpp"
#include "judge/verdict.hpp"
#include "regress/baseline.hpp"
#include "regress/measured_setup.hpp"
#include "regress/observation.hpp"

namespace commsweep::regress {

// The verdict words are the one judge's (judge/verdict.hpp): NotJudged (in the run, not in the
// baseline), SAME, PASS, WARN, NOISY (worse than the fail band by its change alone, but by less
// than the noise the run and the baseline showed of themselves, Judgement::noisy_band_pct: exit
// 12), FAIL; a group's verdict is its worst member's.
using judge::kVerdicts;
using judge::level_of;
using judge::name_of;
using judge::Verdict;

// 2: the verdict NOT_JUDGED (rows the baseline lacks, PASS in 1), counts.NOT_JUDGED, "setup".
// 3: the verdict NOISY, counts.NOISY, each judgement's "noise" (the band that excused it).
inline constexpr const char* kCompareSchema = "commsweep.compare/3";

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
  // The noise a change beyond the fail band is checked against before it FAILs (NOISY inside
  // it), in the metric's direction: time slower, or a bandwidth's drop (below 100%: no spread
  // excuses a drop to zero). Each part in percent of time, slower (NoiseParts).
  struct NoiseParts {
    double baseline = 0;  // the baseline's run-to-run spread of the metric's time, uncapped
    double cycles = 0;    // this run's own spread over its cycles (-N)
    double halves = 0;    // its row's two halves apart (within_row_spread_pct; 0 judged alone)
    double cv = 0;        // the per-iteration cv (the median over its samples)
    double p95 = 0;       // p95 over p50, minus 1 (the median over its samples)
    double shift() const;  // the larger of cycles and halves: what moves a whole half
    double own() const;    // the largest of the run's own parts
  } noise;
  double noisy_band_pct = 0;  // the larger of baseline and own, as a drop for a bandwidth
  double busbw_gbps = 0;         // the run's busbw (bandwidth for EP), for tables and plots
  std::uint64_t wrong = 0;
  std::string reason;
  int samples = 0;  // of the run, at this key (-N cycles, several results files)
  // Worse than the fail band by its change alone (not missing, wrong, or below a floor), FAIL
  // or NOISY: such a FAIL stands only where the row's other half agrees (one half alone is a
  // moment's noise, a WARN), and where neither half is NOISY (require_both_halves).
  bool change_fail = false;
  // FAIL whatever the noise and the other half: below a floor, wrong elements, missing.
  bool hard_fail = false;
  // The tail rule (Rules::tail_fail_pct): the run's p99 (median over its samples) against the
  // baseline's; judged only where both have one, from small_message_bytes up.
  bool tail_judged = false;
  double tail_baseline_us = 0;
  double tail_us = 0;
  double tail_change_pct = 0;  // + is slower
  // The p99's own noise: the baseline's p99 run-to-run spread (p99_spread_pct, uncapped) or
  // this run's over its cycles, the larger; a tail FAIL inside tail_fail_pct plus it is NOISY.
  double tail_noise_pct = 0;
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
  // Its GPU's throttling in the run's windows (report/gpu_findings.hpp: "power cap in 12 of its
  // 16 windows, up to 87% of a window"), the likely cause; "" when none was read or active.
  std::string throttled;
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
  // health WARN or FAIL), 12 noisy (a NOISY and nothing above); bad input (2) never gets this far.
  int exit_code = exit_code::kOk;
};

Comparison compare(const report::Results& results, const Baseline& baseline);

inline int verdict_count(const Comparison& c, Verdict v) { return c.counts[static_cast<int>(v)]; }

}  // namespace commsweep::regress
