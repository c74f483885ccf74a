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

// Rank 0 turns every rank's "time wrong" into the round's pairs and their rails.
void add_round(PairsRun& run, int round, const std::vector<std::string>& reports, bool checked);

// Rounds [first, run.rounds.size()) on every rank; rank 0 collects the rails. A SIGTERM ends the
// rounds (run.complete false) with those measured kept; a timeout or an error ends the job.
// FAULTS: the named point before each round (faults/pairs_faults.hpp plants a hang there).
void measure_rounds(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
                    PairsRun& run, std::size_t first, RoundWatcher& watcher, FaultPoints& faults);

// --adaptive: rank 0 judges every pair measured so far, names what it can, and plans rounds that
// re-test the nodes of slow pairs; every rank measures them; until nothing is left to re-test.
void follow_up(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
               PairsRun& run, RoundWatcher& watcher, FaultPoints& faults);

// Rounds as ints for the broadcast: per round its pair count, then a b per pair.
std::vector<int> encode_rounds(const std::vector<Round>& rounds);
std::vector<Round> decode_rounds(const std::vector<int>& in, const std::string& label);

}  // namespace commsweep::pairs
