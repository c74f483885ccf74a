// The nightly's Prometheus metrics (report/prometheus.hpp's exposition format).
#include <ctime>

#include "regress/render.hpp"
#include "report/prometheus.hpp"

namespace commsweep::regress {
namespace {

using Labels = report::PromLabels;
using report::Exposition;

Labels key_labels(const Key& k) {
  if (k.is_ep()) {
    return {{"test", "ep"}, {"config", k.config}, {"dtype", k.type}, {"tokens", std::to_string(k.size)},
            {"phase", k.place}};
  }
  if (k.is_matrix()) {  // config: the GPU pair or target, the node pair; place: the copy test
    return {{"test", k.test}, {"config", k.config}, {"dtype", k.type}, {"size", std::to_string(k.size)},
            {"place", k.place}};
  }
  return {{"test", k.test}, {"dtype", k.type}, {"op", k.redop}, {"root", std::to_string(k.root)},
          {"size", std::to_string(k.size)}, {"place", k.place}};
}

// started_at (YYYY-MM-DDTHH:MM:SSZ) as Unix seconds; 0 when it does not parse.
double unix_seconds(const std::string& utc) {
  std::tm tm{};
  if (!strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  return static_cast<double>(timegm(&tm));
}

void measurement_families(Exposition& e, const Comparison& c) {
  e.family("commsweep_busbw_gbps", "Bus bandwidth of this run (median over its cycles), GB/s (1e9 bytes/s); EP rows: DeepEP bandwidth; nvlink and pairs: the pair's GB/s.");
  for (const auto& j : c.judgements) {
    if (!j.missing && j.key.place != kLatencyPlace) e.sample(key_labels(j.key), j.busbw_gbps);  // a latency has none
  }
  e.family("commsweep_baseline_value", "The baseline's median of the judged metric (busbw GB/s, or time us below the small-message size).");
  for (const auto& j : c.judgements) {
    if (j.has_baseline) e.sample(key_labels(j.key), j.baseline_value);
  }
  e.family("commsweep_change_ratio", "This run's judged metric over the baseline's, minus 1 (time: positive is slower).");
  for (const auto& j : c.judgements) {
    if (j.has_baseline && !j.missing) e.sample(key_labels(j.key), j.change_pct / 100);
  }
  e.family("commsweep_verdict_level", "Verdict per measurement: 0 SAME, 1 PASS, 2 WARN, 3 FAIL; -1 not judged (not in the baseline), -2 NOISY (not judged: inside the run's own noise).");
  for (const auto& j : c.judgements) e.sample(key_labels(j.key), level_of(j.verdict));
}

void summary_families(Exposition& e, const Comparison& c) {
  e.family("commsweep_compare_exit_code", "Exit code of commsweep compare: 0 pass, 8 wrong data, 9 regression, 12 noisy (docs/failures.md).");
  e.sample({}, c.exit_code);
  e.family("commsweep_compare_verdicts", "Measurements by verdict; NOT_JUDGED: not in the baseline; NOISY: inside the run's own noise, not judged.");
  for (Verdict v : {Verdict::Same, Verdict::Pass, Verdict::Warn, Verdict::Noisy, Verdict::Fail, Verdict::NotJudged}) {
    e.sample({{"verdict", name_of(v)}}, verdict_count(c, v));
  }
  // Only when judged against a baseline of another setup (--allow-mismatch).
  if (!c.setup.differences.empty())
    e.family("commsweep_compare_setup_differs", "1 per property the run and the baseline measured differently (judged anyway).");
  for (const auto& d : c.setup.differences) {
    e.sample({{"property", d.property}, {"run", d.run}, {"baseline", d.baseline}}, 1);
  }
  e.family("commsweep_wrong_elements", "Elements that differed from the expected data, summed over the run.");
  e.sample({}, static_cast<double>(c.wrong_total));
  e.family("commsweep_run_started_seconds", "Start of the judged run, Unix time.");
  e.sample({}, unix_seconds(c.started_at));
  e.family("commsweep_straggler_outlier_samples", "Samples in which this rank's time was an outlier among the ranks' (stragglers only).");
  for (const auto& s : c.stragglers) {
    e.sample({{"rank", std::to_string(s.rank)}, {"host", s.host}, {"gpu", s.gpu}}, s.outlier_samples);
  }
  // Only with findings: a run without them exports what it always did.
  if (!c.health.empty())
    e.family("commsweep_health_finding", "New hardware health findings (WARN, FAIL) of the run: the counter's rise, or 1 for a state.");
  for (const auto& h : c.health) {
    e.sample({{"severity", h.severity}, {"host", h.host}, {"component", h.component}, {"counter", h.counter},
              {"rule", h.rule}, {"limit", h.limit}},
             h.delta >= 0 ? h.delta : 1);
  }
}

}  // namespace

std::string render_prometheus(const Comparison& c) {
  Exposition e({{"shape", c.shape}, {"mode", c.mode}});
  summary_families(e, c);
  measurement_families(e, c);
  return e.text();
}

}  // namespace commsweep::regress
