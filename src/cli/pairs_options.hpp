// `commsweep pairs`: its flags and --help.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace commsweep {

struct PairsOptions {
  bool help = false;
  std::uint64_t bytes = std::uint64_t{64} << 20;  // -s: each way, per rail
  int iters = 20;
  int warmup = 5;
  int check = 1;
  double slow_fraction = 0.8;
  BackendChoice backend = BackendChoice::Auto;
  double timeout_s = 300;
  std::string json_path;
  std::uint64_t seed = 0x636f6d6d73776570ull;
  // Testing only, not in --help: --fault slow-rank:R (a slow rail), or --fault hang:R@ROUND
  // (rank R stays silent from round ROUND on, counted from 1: the job ends by -T, keeping the
  // rounds before it).
  int slow_rank = -1;
  int hang_rank = -1;
  int hang_round = 0;
  std::vector<std::string> arguments;  // argv after the program name, for provenance
};

// Throws a usage Error naming the flag.
PairsOptions parse_pairs_options(int argc, const char* const* argv);
std::string pairs_help_text();

}  // namespace commsweep
