// The outlier rule of `commsweep pairs`. A pair's figure is its slowest rail (the rail a
// collective over both nodes would wait for). Two references, both over the pattern's rounds
// (--adaptive's follow-ups left out: they re-test suspects):
// - the median over every rail of every pair: a healthy fabric's typical rail. A pair below
//   slow_fraction x that median is slow. The median stands for a healthy rail while fewer than
//   half of the rails are slow: one bad rail on any cluster; a whole bad node from 5 nodes up
//   (its pairs are 2/n of all pairs). With 2 to 4 nodes a bad node's rails are half or more, the
//   median is theirs, and this rule alone would pass a 100x spread.
// - the top-third pair: the slowest of the fastest third of the pairs (the ceil(pairs / 3)-th
//   fastest). Noise only slows an exchange, and one bad node among n >= 3 nodes leaves at least
//   a third of the pairs healthy (3 nodes: 1 of 3; all-pairs: (n - 2) / n), so this pair is a
//   healthy one's, while up to a third of pairs measured fast by a fluke cannot lift it (the
//   fastest pair alone can: 8x the median on 16 busy emulated nodes). A pair below
//   slow_fraction_of_top_third (0.1) x it is slow, whatever the median: 10x leaves room for the
//   2-3x that busy shared cores make of healthy rails, and no dead link hides behind a bad
//   median. On a large cluster it is near the median, and the median's rule decides.
// A node in more than one slow pair, and in the most of them, is named as the likely bad
// node, with the local rank whose rail was slowest in its slow pairs most often; unless every
// node is in as many slow pairs (then none stands out). Everything here is O(pairs x rails).
// The rules (below a fraction of a reference, the top-third reference, naming the suspect) are
// the one judge's (judge/reference.hpp); here: which figures pairs holds to which reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pairs/record.hpp"
#include "core/median.hpp"

namespace commsweep::pairs {

struct PairVerdict {
  double gbps = 0;                // the slowest rail's
  int slowest_rail = 0;           // its local rank
  double ratio = 0;               // gbps / median
  double ratio_to_top_third = 0;  // gbps / the top-third pair's
  bool slow = false;              // below either threshold
  bool below_top_third = false;   // below slow_fraction_of_top_third x the top-third pair
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
  double top_third_gbps = 0;             // the top-third pair's figure (its slowest rail)
  int top_third = -1;                    // its index into run.pairs
  double slow_below_top_third_gbps = 0;  // slow_fraction_of_top_third x top_third_gbps
  std::size_t rails = 0;
  // The median's reliability: the most rails one node's pairs hold, and their pairs. When they
  // are half the rails or more (2 to 4 nodes of all-pairs, one pair), one bad node can be the median.
  std::size_t rails_of_busiest_node = 0;
  int pairs_of_busiest_node = 0;
  std::size_t median_rails = 0;       // the rails the median was taken over
  std::vector<PairVerdict> verdicts;  // one per run.pairs[i]
  std::vector<int> slow;              // indices into run.pairs, slowest first
  std::vector<Suspect> suspects;      // empty when no node is in two slow pairs, or all are
  std::uint64_t wrong_total = 0;
};

Analysis analyse(const PairsRun& run);

// Whether one node's pairs hold half the median's rails or more: a bad node's would be the median.
inline bool median_unreliable(const Analysis& a) {
  return a.median_rails > 0 && 2 * a.rails_of_busiest_node >= a.median_rails;
}

// Every pair measured, slow or not: the evidence of the adaptive follow-up (plan/adaptive.hpp).
std::vector<plan::Observation> evidence_of(const PairsRun& run, const Analysis& analysis);

using commsweep::median;  // core/median.hpp: 0 for none

}  // namespace commsweep::pairs
