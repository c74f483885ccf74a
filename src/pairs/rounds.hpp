// The rounds of `commsweep pairs` on every rank: each round's exchange, rank 0 collecting the
// rails, and --adaptive's follow-up rounds. What rank 0 shows of them (a line per round, a
// progress line, the keeper) is the command's: a RoundWatcher.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pairs/exchange.hpp"
#include "pairs/record.hpp"
#include "pairs/settings.hpp"
#include "runtime/world.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/run_control.hpp"
#include "sweep/window_observer.hpp"

namespace commsweep::pairs {

class RoundWatcher {
 public:
  virtual ~RoundWatcher() = default;
  // Every rank: `count` rounds are about to be measured; rounds_ended() once they are (or
  // stopped, or failed).
  virtual void rounds_starting(std::size_t count) = 0;
  virtual void rounds_ended() = 0;
  // Rank 0: round `round` is measured and in `run`.
  virtual void round_measured(const PairsRun& run, int round) = 0;
  // Rank 0: follow-up `step` planned `rounds` rounds, before they are measured.
  virtual void follow_up_planned(int step, std::size_t rounds) = 0;
};

// The exchange of every round as the settings ask: -s bytes each way (as floats), -n -w -c -T
// --seed.
ExchangeConfig exchange_config(const PairsSettings& s);

// Up to this many nodes rank 0 keeps every rank's GPU window of every round (64 nodes of 8 GPUs:
// 512 windows a round, 32,000 over all-pairs' 63 rounds); above it only the throttled ones, which
// the findings join to a slow pair: 1,000 nodes' all-pairs would hold 8 million windows, GBs.
constexpr std::size_t kWindowsKeptNodes = 64;

// Rank 0 turns every rank's "time wrong" into the round's pairs and their rails, and gives each
// pair the GPU WINDOWS of its rails' ranks over the round (gather_windows: every rank's read).
void add_round(PairsRun& run, int round, const std::vector<std::string>& reports, bool checked,
               const std::vector<report::GpuWindow>& windows = {});

// Rounds [first, run.rounds.size()) on every rank; rank 0 collects the rails. A SIGTERM ends the
// rounds (run.complete false) with those measured kept; a timeout or an error ends the job.
// FAULTS: the named point before each round (faults/pairs_faults.hpp plants a hang there).
// GPU_STATE (none: not read): every rank's GPU before and after each round's exchange, outside
// its timed iterations (docs/gpu-state.md); every rank gives one or none alike.
void measure_rounds(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
                    PairsRun& run, std::size_t first, RoundWatcher& watcher, FaultPoints& faults,
                    WindowObserver* gpu_state = nullptr);

// --adaptive: rank 0 judges every pair measured so far, names what it can, and plans rounds that
// re-test the nodes of slow pairs; every rank measures them; until nothing is left to re-test.
void follow_up(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
               PairsRun& run, RoundWatcher& watcher, FaultPoints& faults, WindowObserver* gpu_state = nullptr);

// Rounds as ints for the broadcast: per round its pair count, then a b per pair.
std::vector<int> encode_rounds(const std::vector<Round>& rounds);
std::vector<Round> decode_rounds(const std::vector<int>& in, const std::string& label);

}  // namespace commsweep::pairs
