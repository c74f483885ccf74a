// `commsweep pairs`' settings: one table (settings/setting.hpp) for its flags, the keys of a
// suite's `kind: pairs` entry (--plan's flags and the test hooks have none) and --help.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep::pairs {

struct PairsSettings {
  std::uint64_t bytes = std::uint64_t{64} << 20;  // -s: each way, per rail
  int iters = 20;
  int warmup = 5;
  int check = 1;
  double slow_fraction = 0.8;
  double slow_fraction_of_top_third = 0.1;  // --slow-below-top-third (pairs/outliers.hpp)
  double timeout_s = 300;  // the run's -T (run/run_settings.hpp)
  std::uint64_t seed = 0x636f6d6d73776570ull;
  // Which pairs (src/plan): the pattern, the topology it follows, the follow-up of slow pairs.
  std::string pattern = "all-pairs";
  std::vector<std::string> topology_files;  // --topology, repeatable: their documents together
  bool adaptive = false;
  double max_minutes = 0;                   // 0: no limit
  std::string cost_from;                    // a pairs results file to fit the cost model to
  // --plan: print the plan and its predicted time, without MPI.
  bool plan = false;
  int plan_nodes = 0;            // --nodes N (without --topology)
  int per_leaf = 0;              // --per-leaf K: a synthetic topology of leaves of K nodes
  int leaves_per_block = 0;      // --leaves-per-block B
  int gpus_per_node = 8;         // rails per node in --plan's bytes
  // Testing only, not in --help: --fault slow-rank:R (a slow rail), or --fault hang:R@ROUND
  // (rank R stays silent from round ROUND on, counted from 1: the job ends by -T, keeping the
  // rounds before it).
  int slow_rank = -1;
  double fault_slowdown = 30;  // --fault-slowdown F: how many times slower a planted slow exchange is
  std::string slow_leaf;  // --fault slow-leaf:LEAF: that leaf's ranks are slow with every rank outside it
  int hang_rank = -1;
  int hang_round = 0;
};

// Sections of --help: the options shown, and the test hooks (not shown).
inline constexpr const char* kOptionsSection = "options";
inline constexpr const char* kHiddenSection = "hidden";

const settings::Table<PairsSettings>& pairs_settings();

}  // namespace commsweep::pairs
