// Synthetic results and baselines for the regression tests: a run is built from a busbw per
// size, so that a test states exactly the change it judges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "regress/baseline.hpp"
#include "report/result.hpp"

namespace commsweep::regress::testing {

// An all_reduce float sum row on `ranks` ranks with this busbw for both halves; the time
// follows from the size (algbw = busbw * n / (2(n - 1))), every rank's time equal.
inline report::ResultRow all_reduce_row(std::uint64_t size, double busbw, int ranks = 4) {
  report::ResultRow row;
  row.test = "all_reduce";
  row.size_bytes = size;
  row.count = size / 4;
  row.type = "float";
  row.redop = "sum";
  const double algbw = busbw * ranks / (2.0 * (ranks - 1));
  report::Timing t;
  t.busbw_gbps = busbw;
  t.algbw_gbps = algbw;
  t.time_us = algbw > 0 ? size / (algbw * 1e3) : 0;
  t.wrong = 0;
  t.rank_time_us.assign(ranks, t.time_us);
  t.slowest_time_us = t.time_us;
  row.out_of_place = t;
  row.in_place = t;
  return row;
}

// One run: sizes 1M, 2M, 4M, 8M at `busbw` GB/s, times `scale`.
inline report::Results run_at(double busbw, double scale = 1.0,
                              std::vector<std::uint64_t> sizes = {1 << 20, 2 << 20, 4 << 20, 8 << 20}) {
  report::Results r;
  r.provenance.started_at = "2026-11-21T03:15:00Z";
  r.provenance.backend = "nccl";
  r.provenance.ranks = 4;
  r.provenance.hosts = {"node-a", "node-a", "node-b", "node-b"};
  for (int rank = 0; rank < 4; ++rank) {
    r.provenance.gpus.push_back({rank, r.provenance.hosts[rank], rank % 2, "NVIDIA H200",
                                 "00000000:1" + std::to_string(rank) + ":00.0"});
  }
  for (auto size : sizes) r.rows.push_back(all_reduce_row(size, busbw * scale));
  return r;
}

// A baseline from runs, with the default rules.
inline Baseline baseline_of(const std::vector<report::Results>& runs) {
  Baseline b;
  b.shape = "h200x4";
  b.mode = "nvlink";
  b.provenance.created_at = "2026-11-20T00:00:00Z";
  b.provenance.created_by = "test";
  b.entries = baseline_entries(runs);
  return b;
}

}  // namespace commsweep::regress::testing
