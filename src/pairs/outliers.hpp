// The outlier rule of `commsweep pairs`. A pair's figure is its slowest rail (the rail a
// collective over both nodes would wait for). The reference is the median over every rail of
// every pair of the pattern's rounds (--adaptive's follow-ups left out: they re-test suspects):
// a healthy fabric's typical rail. A pair below slow_fraction x that median is
// slow. A node in more than one slow pair, and in the most of them, is named as the likely bad
// node, with the local rank whose rail was slowest in its slow pairs most often; unless every
// node is in as many slow pairs (then none stands out).
// The median stands for a healthy rail while fewer than half of the rails are slow: one bad
// rail on any cluster; a whole bad node from 5 nodes up (its pairs are 2/n of all pairs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pairs/record.hpp"

namespace commsweep::pairs {

struct PairVerdict {
  double gbps = 0;       // the slowest rail's
  int slowest_rail = 0;  // its local rank
  double ratio = 0;      // gbps / median
  bool slow = false;
};

struct Suspect {
  int node = 0;
  int slow_pairs = 0;  // slow pairs this node is in
  int pairs = 0;       // pairs this node is in
  int local_rank = 0;  // the rail slowest most often in those slow pairs
  int rank = 0;
  std::string pci_bus_id;
};

struct Analysis {
  double median_gbps = 0;
  double slow_below_gbps = 0;
  std::size_t rails = 0;
  std::vector<PairVerdict> verdicts;  // one per run.pairs[i]
  std::vector<int> slow;              // indices into run.pairs, slowest first
  std::vector<Suspect> suspects;      // empty when no node is in two slow pairs, or all are
  std::uint64_t wrong_total = 0;
};

Analysis analyse(const PairsRun& run);

// Every pair measured, slow or not: the evidence of the adaptive follow-up (plan/adaptive.hpp).
std::vector<plan::Observation> evidence_of(const PairsRun& run, const Analysis& analysis);

double median(std::vector<double> values);  // 0 for none

}  // namespace commsweep::pairs
