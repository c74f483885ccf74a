// The rules of a baseline applied to one run (results/schema/baseline.md, "rules").
#include "regress/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "core/strings.hpp"
#include "judge/outcomes.hpp"
#include "regress/stragglers.hpp"

namespace commsweep::regress {
namespace {

std::string pct(double v) { return printed("%.1f%%", v); }
std::string gbps(double v) { return printed("%.2f GB/s", v); }

Metric metric_for(const Key& key, const Rules& rules) {
  if (key.is_ep()) return Metric::Bandwidth;
  // A matrix's size is its run's bytes per copy, not what its latency moves (a 4-byte flag).
  if (key.is_matrix()) return key.place == kLatencyPlace ? Metric::Time : Metric::Bandwidth;
  return key.size < rules.small_message_bytes ? Metric::Time : Metric::Busbw;
}

const Floor* floor_for(const Key& key, const Rules& rules) {
  const Floor* found = nullptr;
  for (const auto& f : rules.floors) {
    if (key.judged_alone() || f.test != key.test || (!f.type.empty() && f.type != key.type)) continue;
    if (key.size < f.from_size_bytes) continue;
    if (!found || f.min_busbw_gbps > found->min_busbw_gbps) found = &f;
  }
  return found;
}

// A spread of times, in percent slower, as the metric's worse: a time's own, a bandwidth's drop
// (1 - 1 / (1 + spread)), below 100% however large the spread: no noise excuses a drop to zero.
double compare_worse_of_slower(Metric m, double slower_pct) {
  return m == Metric::Time ? slower_pct : (1.0 - 1.0 / (1.0 + slower_pct / 100.0)) * 100.0;
}

// Two noises together, as SAME takes them: the larger. (Compounded, (1 + a)(1 + b) - 1, the
// worst case of both, measured on this machine's tries: 23 of 120 identical compares with a
// FAIL against 32 with the larger, but 12 of 15 slowed tries exit 9 against 14; quadrature of
// their logarithms 29 and 13: docs/regression-rules.md, "NOISY".)
double compare_combined_pct(double a_pct, double b_pct) { return std::max(a_pct, b_pct); }

// The noise the run and the baseline showed of themselves at O (Judgement::NoiseParts), and the
// band a change beyond the fail band must leave to FAIL rather than be NOISY: the baseline's
// spread uncapped (one wild baseline run may make a change NOISY, never SAME), or the largest
// of the run's own, whichever is larger.
void compare_noise_band(Judgement& j, const Observation& o, const BaselineEntry& base, const BaselineEntry* other_half) {
  auto& n = j.noise;
  n.baseline = base.time_spread_pct;
  n.cycles = spread_pct(o.time_us);
  // The halves' relation against the baseline's: how far the ratio of the two halves' times moved
  // (a difference they always have, as on one rank, is no noise). Without the other half's entry,
  // the halves' disagreement itself.
  const double run_ratio = 1.0 + median(o.within_spread_pct) / 100.0;
  const double base_ratio =
      other_half != nullptr ? 1.0 + within_row_spread_pct(base.time_us, other_half->time_us) / 100.0 : 1.0;
  n.halves = base_ratio > 0 ? std::fabs(run_ratio / base_ratio - 1.0) * 100.0 : 0.0;
  std::vector<double> cv, p95;
  for (const auto& s : o.per_iter) {
    cv.push_back(s.cv_pct);
    if (s.p50_us > 0) p95.push_back((s.p95_us / s.p50_us - 1.0) * 100.0);
  }
  n.cv = median(cv);
  n.p95 = std::max(0.0, median(p95));
  j.noisy_band_pct = compare_worse_of_slower(j.metric, compare_combined_pct(n.baseline, n.own()));
}

// "(this run's own: p95 41.0% over p50, cv 15.0%, halves' ratio 53.0% off the baseline's; the
// baseline's runs 12.0% apart)": the parts of the band that are there.
std::string compare_noise_text(const Judgement::NoiseParts& n) {
  std::string own;
  const auto add = [&own](double v, const std::string& text) {
    if (v >= 0.05) own += (own.empty() ? "" : ", ") + text;
  };
  add(n.p95, "p95 " + pct(n.p95) + " over p50");
  add(n.cv, "cv " + pct(n.cv));
  add(n.halves, "halves' ratio " + pct(n.halves) + " off the baseline's");
  add(n.cycles, "cycles " + pct(n.cycles) + " apart");
  return "this run's own: " + (own.empty() ? std::string("none measured") : own) + "; the baseline's runs " +
         pct(n.baseline) + " apart";
}

// How much worse the run is, in percent of the baseline (negative: better).
double worse_pct(Metric m, double baseline, double value) {
  if (baseline <= 0) return 0;
  return m == Metric::Time ? (value - baseline) / baseline * 100 : (baseline - value) / baseline * 100;
}

void judge_change(Judgement& j, const Rules& rules) {
  const double worse = worse_pct(j.metric, j.baseline_value, j.value);
  const std::string what = name_of(j.metric);
  const std::string direction = j.metric == Metric::Time ? (worse > 0 ? "slower" : "faster")
                                                         : (worse > 0 ? "lower" : "higher");
  const std::string change =
      std::fabs(worse) < 0.05 ? what + " unchanged" : what + " " + pct(std::fabs(worse)) + " " + direction;
  if (j.baseline_value <= 0) {
    j.verdict = Verdict::Pass;
    j.reason = "baseline " + what + " is 0";
  } else if (std::fabs(worse) <= j.noise_pct) {
    j.verdict = Verdict::Same;
    j.reason = change + ", inside the noise of " + pct(j.noise_pct);
  } else if (worse >= rules.fail_pct && worse <= j.noisy_band_pct) {
    // Beyond the fail band, but a run this noisy (or a baseline this spread) could show it.
    j.verdict = Verdict::Noisy;
    j.change_fail = true;
    j.reason = change + ", inside the noise band of " + pct(j.noisy_band_pct) + " (" + compare_noise_text(j.noise) +
               "): not judged";
  } else if (worse >= rules.fail_pct) {
    j.verdict = Verdict::Fail;
    j.change_fail = true;
    j.reason = change + " (fail band " + pct(rules.fail_pct) + ", beyond the noise of " + pct(j.noise_pct) + ")";
  } else if (worse >= rules.warn_pct) {
    j.verdict = Verdict::Warn;
    j.reason = change + " (warn band " + pct(rules.warn_pct) + ", beyond the noise of " + pct(j.noise_pct) + ")";
  } else {
    j.verdict = Verdict::Pass;
    j.reason = change;
  }
}

// The tail rule: a p99 more than tail_fail_pct, plus the noise the median is judged against,
// above the baseline's FAILs the half (both halves must agree, as for a change of the median:
// require_both_halves). Halves of fewer than tail_min_iterations iterations are not judged.
void judge_tail(Judgement& j, const Observation& o, const BaselineEntry& base, const Rules& rules) {
  if (o.key.judged_alone() || o.key.size < rules.small_message_bytes || base.p99_us <= 0 || o.p99_us.empty()) return;
  for (const auto& s : o.per_iter) {
    if (s.times_us.size() < static_cast<std::size_t>(rules.tail_min_iterations)) return;
  }
  j.tail_judged = true;
  j.tail_baseline_us = base.p99_us;
  j.tail_us = median(o.p99_us);
  j.tail_change_pct = (j.tail_us / base.p99_us - 1) * 100;
  const double limit = rules.tail_fail_pct + j.noise_pct;
  if (j.tail_change_pct <= limit) return;
  // The p99's own noise: the baseline's p99s run to run (uncapped) or this run's over its
  // cycles; and at least what may have shifted the whole half, as a time (the baseline's spread,
  // this run's cycles and halves apart): a p99 moves with its median, so a half
  // shifted by noise takes its p99 along (the limit above adds the median's noise for the same
  // reason). Not the iterations' own spread (cv, p95): that is the tail this rule judges.
  const double own_p99 = spread_pct(o.p99_us);
  const double shift = compare_combined_pct(j.noise.baseline, j.noise.shift());
  j.tail_noise_pct = std::max({j.noise_pct, compare_combined_pct(base.p99_spread_pct, own_p99), shift});
  const std::string figures = printed("%.1f", j.tail_us) + " us against " + printed("%.1f", base.p99_us) + " us";
  if (j.tail_change_pct <= rules.tail_fail_pct + j.tail_noise_pct) {
    if (j.verdict == Verdict::Fail) return;  // the median's FAIL stands on its own
    const std::string tail = "p99 " + pct(j.tail_change_pct) + " slower (" + figures + "), inside the tail rule's " +
                             pct(rules.tail_fail_pct) + " + its noise of " + pct(j.tail_noise_pct) +
                             " (the baseline's p99s " + pct(base.p99_spread_pct) + " apart, this run's " +
                             pct(own_p99) + "; the whole half's shift " + pct(shift) + "): not judged";
    j.reason = j.verdict == Verdict::Noisy ? j.reason + "; " + tail : tail + "; the median: " + j.reason;
    j.verdict = Verdict::Noisy;
    j.change_fail = true;
    return;
  }
  const std::string tail = "p99 " + pct(j.tail_change_pct) + " slower (" + figures + "; tail rule " +
                           pct(rules.tail_fail_pct) + " + the noise of " + pct(j.tail_noise_pct) + ")";
  if (j.verdict == Verdict::Fail) {
    j.reason += "; " + tail;
    return;
  }
  j.verdict = Verdict::Fail;
  j.change_fail = true;
  j.reason = tail + "; the median: " + j.reason;
}

Judgement::Spread spread_of(const std::vector<report::IterationStats>& samples) {
  Judgement::Spread s;
  if (samples.empty()) return s;
  const auto median_of = [&](double report::IterationStats::*field) {
    std::vector<double> v;
    for (const auto& x : samples) v.push_back(x.*field);
    return median(v);
  };
  s.iterations = static_cast<int>(samples.front().times_us.size());
  s.min_us = median_of(&report::IterationStats::min_us);
  s.p50_us = median_of(&report::IterationStats::p50_us);
  s.p95_us = median_of(&report::IterationStats::p95_us);
  s.p99_us = median_of(&report::IterationStats::p99_us);
  s.max_us = median_of(&report::IterationStats::max_us);
  s.cv_pct = median_of(&report::IterationStats::cv_pct);
  for (const auto& x : samples) s.spikes += x.spikes;
  return s;
}

Judgement judge(const Observation& o, const BaselineEntry* base, const BaselineEntry* other_half, const Rules& rules) {
  Judgement j;
  j.spread = spread_of(o.per_iter);
  j.key = o.key;
  j.metric = metric_for(o.key, rules);
  // One rank: busbw is 0 by definition (nccl-tests' factor 2(n-1)/n for all_reduce), so its time
  // is judged, whatever the size.
  if (j.metric == Metric::Busbw && base != nullptr && base->bandwidth_gbps <= 0 && base->time_us > 0) j.metric = Metric::Time;
  const auto& values = j.metric == Metric::Time ? o.time_us : o.bandwidth_gbps;
  j.samples = static_cast<int>(values.size());
  j.value = median(values);
  j.busbw_gbps = median(o.bandwidth_gbps);
  j.wrong = o.wrong.value_or(0);
  if (base) {
    j.has_baseline = true;
    j.baseline_value = j.metric == Metric::Time ? base->time_us : base->bandwidth_gbps;
    // The noise a change may lie in and be SAME: the baseline's spread and this run's own over
    // its cycles, each capped (one wild sample, of the baseline or of this run, must not pass a
    // regression: beyond the cap, inside what the run showed of itself, the change is NOISY,
    // compare_noise_band), and for latencies a floor.
    const double base_spread = j.metric == Metric::Time ? base->time_spread_pct : base->bandwidth_spread_pct;
    // The run's own spread, over its cycles. For a bandwidth it is the drop its cycles span,
    // (max - min) / max of their times: a spread over the median exceeds 100% once cycles differ
    // by 3x, and would then excuse any drop, even to zero.
    double own = spread_pct(o.time_us);
    if (j.metric != Metric::Time && !o.time_us.empty()) {
      const auto [lo, hi] = std::minmax_element(o.time_us.begin(), o.time_us.end());
      own = *hi > 0 ? (*hi - *lo) / *hi * 100.0 : 0.0;
    }
    j.noise_pct = std::min(std::max(base_spread, own), rules.max_noise_pct);
    if (j.metric == Metric::Time) j.noise_pct = std::max(j.noise_pct, rules.latency_noise_floor_pct);
    compare_noise_band(j, o, *base, other_half);
    j.change_pct = j.baseline_value > 0 ? (j.value / j.baseline_value - 1) * 100 : 0;
    judge_change(j, rules);
    judge_tail(j, o, *base, rules);
  } else {
    // Nothing to judge it against: said apart, never a PASS (a floor or a wrong element below
    // still FAILs it).
    j.verdict = Verdict::NotJudged;
    j.reason = "not judged: not in the baseline";
  }
  if (const Floor* f = floor_for(o.key, rules); f && j.busbw_gbps < f->min_busbw_gbps) {
    j.verdict = Verdict::Fail;
    j.hard_fail = true;
    j.reason = "busbw " + gbps(j.busbw_gbps) + " below the floor of " + gbps(f->min_busbw_gbps) +
               " from " + size_text(f->from_size_bytes);
  }
  if (j.wrong > 0) {
    j.verdict = Verdict::Fail;
    j.hard_fail = true;
    j.reason = std::to_string(j.wrong) + " wrong elements";
  }
  return j;
}

// A collective's row is timed twice, out-of-place and in-place, moments apart. A regression
// (a slower link, a slower rank) slows both; a preempted or throttled moment slows one. So a
// FAIL by change alone stands only where the other half of the row also FAILs by change; else
// it is a WARN that says why. (The price: a regression of one half alone, an in-place path
// only, is a WARN; it is named, and a nightly job that wants it fatal reads the WARNs.) Where
// both halves are worse than the fail band but one is NOISY, the row rests on one half alone
// again: the FAIL half is NOISY too. Floors, wrong elements and missing rows FAIL on their own.
void require_both_halves(std::vector<Judgement>& judgements) {
  std::map<Key, const Judgement*> by_key;
  for (const auto& j : judgements) by_key[j.key] = &j;
  std::vector<std::pair<Judgement*, std::string>> lone, noisy;
  for (auto& j : judgements) {
    if (!j.change_fail || j.hard_fail || j.key.judged_alone()) continue;  // no halves: EP phases, a matrix's tests
    Key other = j.key;
    other.place = j.key.place == "in_place" ? "out_of_place" : "in_place";
    const auto it = by_key.find(other);
    if (it == by_key.end()) continue;
    const Judgement& o = *it->second;
    const std::string said = other.place + " half " + (o.has_baseline ? name_of(o.verdict) + std::string(" (") + o.reason + ")"
                                                                      : std::string("not judged"));
    if (!o.change_fail) {
      lone.emplace_back(&j, said);
    } else if (j.verdict == Verdict::Fail && o.verdict == Verdict::Noisy) {
      noisy.emplace_back(&j, said);
    }
  }
  for (auto& [j, other] : lone) {  // after the scan: every verdict above is the half's own
    j->verdict = Verdict::Warn;
    j->change_fail = false;
    j->reason += "; only this half: the " + other + ", so a moment's noise, not a regression";
  }
  for (auto& [j, other] : noisy) {
    j->verdict = Verdict::Noisy;
    j->reason += "; the " + other + ": the row rests on this half alone, not judged";
  }
}

Judgement missing(const BaselineEntry& e) {
  Judgement j;
  j.key = e.key;
  j.verdict = Verdict::Fail;
  j.hard_fail = true;
  j.has_baseline = true;
  j.missing = true;
  j.reason = "missing from the results (in the baseline)";
  return j;
}

// 8 wrong elements, 9 a FAIL or a new health finding, 12 a NOISY: the one judge orders them.
int exit_code_of(const Comparison& c) {
  judge::Outcomes o;
  o.wrong_data = c.wrong_total > 0;
  o.regression = c.counts[static_cast<int>(Verdict::Fail)] > 0 || !c.health.empty();
  o.noisy = c.counts[static_cast<int>(Verdict::Noisy)] > 0;
  return judge::exit_code_of(o);
}

// The WARN and FAIL findings of the run's "health" member; a malformed member is bad input.
std::vector<HealthFinding> health_findings(const nlohmann::json& health) {
  std::vector<HealthFinding> out;
  if (!health.is_object() || !health.contains("findings")) return out;
  try {
    for (const auto& f : health.at("findings")) {
      HealthFinding h{f.at("severity").get<std::string>(), f.at("host").get<std::string>(),
                      f.at("component").get<std::string>(), f.at("counter").get<std::string>(),
                      f.at("detail").get<std::string>(), f.value("delta", -1.0),
                      f.value("rule", ""), f.value("limit", ""), f.value("rate_per_s", -1.0)};
      // A state already so before the run is not this run's finding (health/findings.hpp).
      const bool persistent = f.contains("persistent") && f.at("persistent").get<bool>();
      if ((h.severity == "WARN" || h.severity == "FAIL") && !persistent) out.push_back(std::move(h));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed results document: \"health\": ") + e.what());
  }
  return out;
}

// A slower run with moved counters: which components moved while the slow sizes ran (the
// whole run: the snapshots are taken before and after it).
std::vector<std::string> join_with_slow(const Comparison& c) {
  std::vector<std::string> out;
  const Judgement* worst = nullptr;
  for (const auto& j : c.judgements)
    if (j.verdict == Verdict::Fail && !j.missing && (!worst || j.change_pct < worst->change_pct)) worst = &j;
  if (!worst) return out;
  const std::string what = "the run whose " + describe(worst->key) + " failed against the baseline (" +
                           std::to_string(static_cast<int>(worst->change_pct)) + "%)";
  for (const auto& h : c.health) out.push_back(h.host + " " + h.component + ": " + health_text(h) + " during " + what);
  return out;
}

}  // namespace

std::string health_text(const HealthFinding& h) {
  return h.counter + " " + h.detail + (h.rule.empty() ? "" : " (rule " + h.rule + ": " + h.limit + ")");
}

double Judgement::NoiseParts::shift() const { return std::max(cycles, halves); }
double Judgement::NoiseParts::own() const { return std::max({shift(), cv, p95}); }

const char* name_of(Metric m) {
  switch (m) {
    case Metric::Busbw: return "busbw";
    case Metric::Time: return "time";
    case Metric::Bandwidth: return "bandwidth";
    case Metric::None: return "-";
  }
  return "?";
}

std::string ending_of(const report::Results& r) {
  if (r.complete) return "";
  if (r.failure.empty()) return r.interrupted_by.empty() ? "interrupted" : "interrupted by " + r.interrupted_by;
  const std::string& cause = r.interrupted_by;
  const char* article = cause == "timeout" ? "a " : cause == "error" ? "an " : "";
  return "ended early by " + std::string(article) + (cause.empty() ? "a failure" : cause) + ": " + r.failure;
}

Comparison compare(const report::Results& results, const Baseline& baseline) {
  Comparison c;
  c.shape = baseline.shape;
  c.mode = baseline.mode;
  c.rules = baseline.rules;
  c.started_at = results.provenance.started_at;
  c.hosts = results.provenance.hosts;
  c.complete = results.complete;
  c.ended_by = ending_of(results);
  const auto observed = observe(results);
  std::map<Key, const BaselineEntry*> expected;
  for (const auto& e : baseline.entries) expected[e.key] = &e;
  for (const auto& [key, o] : observed) {
    const auto it = expected.find(key);
    Key other = key;  // the row's other half (collectives), whose relation to this one is known
    other.place = key.place == "in_place" ? "out_of_place" : "in_place";
    const auto half = key.judged_alone() ? expected.end() : expected.find(other);
    c.judgements.push_back(judge(o, it == expected.end() ? nullptr : it->second,
                                 half == expected.end() ? nullptr : half->second, baseline.rules));
  }
  for (const auto& [key, e] : expected) {
    if (!observed.count(key)) c.judgements.push_back(missing(*e));
  }
  std::sort(c.judgements.begin(), c.judgements.end(),
            [](const Judgement& a, const Judgement& b) { return a.key < b.key; });
  require_both_halves(c.judgements);
  for (const auto& j : c.judgements) {
    ++c.counts[static_cast<int>(j.verdict)];
    c.wrong_total += j.wrong;
  }
  c.wrong_total = std::max(c.wrong_total, results.wrong_total);
  c.stragglers = find_stragglers(results, observed, baseline.rules.stragglers);
  c.health = health_findings(results.health);
  if (results.health.is_object() && results.health.contains("verdict") && results.health.at("verdict").is_array())
    for (const auto& v : results.health.at("verdict"))
      if (v.is_string()) c.health_evidence.push_back(v.get<std::string>());
  for (auto& line : join_with_slow(c)) c.health_evidence.push_back(std::move(line));
  c.exit_code = exit_code_of(c);
  return c;
}

}  // namespace commsweep::regress
