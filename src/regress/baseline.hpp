// A baseline (schema commsweep.baseline/1, results/schema/baseline.md): the median and the
// run-to-run spread of every measurement over N runs of one shape and fabric mode, and the
// rules that judge a new run against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "regress/measured_setup.hpp"
#include "regress/observation.hpp"
#include "report/result.hpp"

namespace commsweep::regress {

inline constexpr const char* kBaselineSchema = "commsweep.baseline/1";

// An absolute minimum: busbw of `test` (every type unless `type` is set) at least
// `min_busbw_gbps` from `from_size_bytes` up, whatever the baseline's median says.
struct Floor {
  std::string test;
  std::string type;  // empty: every type
  std::uint64_t from_size_bytes = 0;
  double min_busbw_gbps = 0;
};

struct StragglerRules {
  double mad_k = 5;             // a rank's time > median + k * MAD of the ranks' times ...
  double min_slower_pct = 10;   // ... and more than this much slower than the median
  double min_samples_pct = 25;  // named when it is an outlier in at least this share of samples
};

struct Rules {
  double warn_pct = 5;   // worse by this much: WARN
  double fail_pct = 10;  // worse by this much: FAIL
  // Below this size the time is judged (latency-bound: busbw is tiny and noisy), from it up busbw.
  std::uint64_t small_message_bytes = 65536;
  // The baseline's spread, and the judged run's over its cycles, excuse a change (SAME) up to
  // this much: one wild sample must not hide every regression of that size. (Beyond it, a change
  // inside the noise the run or the baseline showed is NOISY: said to be too noisy to judge,
  // neither passed nor failed.)
  double max_noise_pct = 25;
  // Below small_message_bytes a time is never judged finer than this: a latency of a few
  // microseconds moves by tens of percent with the scheduler, whatever the rows showed.
  double latency_noise_floor_pct = 30;
  // The tail rule (docs/regressions.md, "The tail rule"): from small_message_bytes up, a half
  // whose per-iteration p99 (the median over its samples) is more than this much, plus the
  // noise the median is judged against, above the baseline's p99 FAILs, whatever its median
  // did: a flapping link or a noisy neighbour slows a few iterations in a hundred, which the
  // median never shows. 50%: the fail band's 10% is for a median; a p99 of 20 iterations is
  // their max (nccl-tests' nearest rank), one sample, far noisier. Not yet calibrated on the
  // GPUs: issue 26's GPU run measures the p99 of identical runs.
  double tail_fail_pct = 50;
  // Halves of fewer timed iterations are not judged by the tail rule: their p99 is the max of a
  // handful, which one preemption of a busy host sets (4 mpi ranks on 2 cores, -n 5: +140%
  // between identical runs). 20: nccl-tests' and commsweep's default -n.
  int tail_min_iterations = 20;
  std::vector<Floor> floors;
  StragglerRules stragglers;
};

struct BaselineSource {
  std::string file;
  std::string started_at;
  std::string backend;
  std::string git_hash;
  std::vector<std::string> hosts;
  // What the run measured (backend, ranks, nodes, GPUs per node, shape, buffers, timer), for
  // compare's check; a baseline written before it has backend, ranks and nodes only (its
  // backend and hosts), the rest "".
  MeasuredSetup setup;
};

struct BaselineProvenance {
  std::string created_at;  // UTC
  std::string created_by;  // "commsweep baseline ..." command line
  std::string commsweep_version;
  std::string git_hash;
  std::string note;
  std::vector<BaselineSource> sources;
};

// The spreads: the run-to-run spread over every sample ((max - min) / median), and at least
// the noise the rows showed of themselves (observation.hpp, within_row_spread_pct), so that a
// baseline from one run carries a spread too.
struct BaselineEntry {
  Key key;
  int samples = 0;
  double bandwidth_gbps = 0;  // median busbw (collectives) or DeepEP bandwidth (EP)
  double bandwidth_spread_pct = 0;
  double time_us = 0;         // median
  double time_spread_pct = 0;
  // The median over the samples of each half's per-iteration p99 (report::IterationStats); 0
  // where the runs kept no iterations (--per-iteration off, files from before issue 26).
  double p99_us = 0;
  // The run-to-run spread of those p99s ((max - min) / median, uncapped), for compare's NOISY
  // band of the tail rule; 0 with one sample, and in files written before issue 43 (absent there).
  double p99_spread_pct = 0;
};

// Runs a baseline should be made of: fewer, and its spreads are the rows' own noise rather
// than what changes from one run to the next (commsweep baseline says so).
inline constexpr std::size_t kRecommendedBaselineRuns = 5;

struct Baseline {
  std::string shape;  // e.g. "h200x4"
  std::string mode;   // fabric mode, e.g. "nvlink", "ib", "roce-sriov"
  BaselineProvenance provenance;
  Rules rules;
  std::vector<BaselineEntry> entries;  // sorted by key
};

// Median and spread of every key over every sample of every run (all cycles of all files).
std::vector<BaselineEntry> baseline_entries(const std::vector<report::Results>& runs);

// A shape name from the provenance: "h200x4" from 4 x "NVIDIA H200", "cpux4" on the mpi backend.
std::string shape_of(const report::Provenance& p);

}  // namespace commsweep::regress
