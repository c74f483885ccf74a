// Pair planners: pure functions from the nodes and their topology to rounds of disjoint node
// pairs. A round's pairs run at once (every rail of a pair, both directions); no node is in two
// pairs of a round, so a slow pair is its own nodes' or its own path's fault.
//   all-pairs   the round-robin tournament: every pair exactly once, n-1 rounds (n even) or n (odd)
//   intra-leaf  every pair of nodes under the same leaf, every leaf at once: NICs and cables,
//               without the uplinks
//   cross-leaf  every pair of nodes under different leaves: every round loads the uplinks
//   bisection   per cut level, half of each group against the other half at once (the top cut
//               loads the whole bisection), down to the nodes of one leaf
//   sample:K    K random perfect matchings; the coverage reached is stated
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/network/topology.hpp"

namespace commsweep::plan {

struct NodePair {
  int a = 0;  // a < b
  int b = 0;
};

struct Round {
  std::vector<NodePair> pairs;
  int sits_out = -1;  // all-pairs with an odd node count: the node without a partner, or -1
  std::string label;  // what the round tests ("cut 1: block", "intra-leaf", "follow-up 1"); "" for all-pairs
};

enum class Pattern { AllPairs, IntraLeaf, CrossLeaf, Bisection, Sample };

struct PatternSpec {
  Pattern pattern = Pattern::AllPairs;
  int samples = 0;  // sample:K
  std::uint64_t seed = 1;
};

// "all-pairs", "intra-leaf", "cross-leaf", "bisection", "sample:K" (K >= 1); throws
// std::invalid_argument naming the text and the choices.
PatternSpec parse_pattern(const std::string& text);
std::string pattern_name(const PatternSpec& spec);

struct Plan {
  std::string pattern;
  std::vector<Round> rounds;
  std::uint64_t pairs = 0;           // pairs over all rounds
  std::uint64_t distinct_pairs = 0;  // of n(n-1)/2
  std::uint64_t promised_pairs = 0;  // the pairs the pattern promises to measure exactly once (0: none)
  int lower_bound_rounds = 0;        // no plan of these pairs has fewer rounds (max pairs of one node)
  std::vector<std::string> notes;    // what the pattern cannot do on this topology
  double coverage() const;           // distinct_pairs / (n(n-1)/2)
  int nodes = 0;
};

Plan make_plan(const PatternSpec& spec, const Topology& topology);

// The circle method over `members` (node ids): the first stays, the others rotate; a phantom
// partner for an odd count makes one member sit out each round.
std::vector<Round> round_robin(const std::vector<int>& members);
std::vector<Round> round_robin(int nodes);  // over 0 .. nodes-1

// Pairs packed greedily into rounds of disjoint pairs, in the order given.
std::vector<Round> pack_rounds(const std::vector<NodePair>& pairs, const std::string& label);

}  // namespace commsweep::plan
