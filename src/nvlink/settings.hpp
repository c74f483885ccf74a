// `commsweep nvlink`'s settings: one table (settings/setting.hpp) for its flags, the keys of a
// suite's `kind: nvlink` entry and --help.
#pragma once

#include <cstdint>
#include <string>

#include "settings/setting.hpp"

namespace commsweep::nvlink {

struct NvlinkSettings {
  // 256 MiB per copy: the copy engines' rate is flat from 64 MiB up, and 25 copies of it take
  // 18 ms at 370 GB/s (the budget of a node's matrix: docs/nvlink.md).
  std::uint64_t bytes = std::uint64_t{256} << 20;
  int iters = 20;
  int warmup = 5;
  int latency_iters = 2000;  // round trips of the flag per pair
  double slow_fraction = 0.9;
  double expected_floor = 0.7;
  double latency_over = 2;
  std::uint64_t seed = 0x6e766c696e6b3031ull;  // "nvlink01"
  // --show-expected: a table of each pair's expected figures and its share of them.
  bool show_expected = false;
  // --judge FILE: judge a results file again without MPI (no mpirun), with these thresholds.
  std::string judge_path;
  double timeout_s = 300;  // the run's -T (run/run_settings.hpp)
  // Testing only, not in --help: --fault slow-pair:A,B (world ranks A and B of one node): every
  // bandwidth test between their GPUs, both ways, moves its bytes fault_slowdown times per timed
  // copy (the extra copies are real NVLink traffic, verified like the others).
  int slow_pair_a = -1, slow_pair_b = -1;
  int fault_slowdown = 4;
  std::string fault;  // as given, for the record
};

inline constexpr const char* kOptionsSection = "options";
inline constexpr const char* kHiddenSection = "hidden";

const settings::Table<NvlinkSettings>& nvlink_settings();

}  // namespace commsweep::nvlink
