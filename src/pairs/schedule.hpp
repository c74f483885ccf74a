// Rounds of disjoint node pairs: the planners of src/plan (a round-robin tournament by default,
// so that every pair of nodes is measured exactly once and no node takes part in two exchanges
// at the same time: a node's NICs then carry one pair's traffic only, and a slow pair is the
// pair's own fault), and which rank meets which in a round.
#pragma once

#include <vector>

#include "plan/planners.hpp"

namespace commsweep::pairs {

using plan::NodePair;
using plan::Round;
// The circle method: node 0 stays, the others rotate one place per round. n - 1 rounds for an
// even n, n for an odd n (a "bye" makes it even; the node drawn against it sits out, each node
// once). n < 2: no rounds.
using plan::round_robin;

// node_of_rank[r] -> the ranks of each node, in rank order (index = local rank on the node).
std::vector<std::vector<int>> ranks_by_node(const std::vector<int>& node_of_rank);

// The rank that `rank` exchanges with in `round`: local rank k of one node meets local rank k
// of the other; -1 when its node sits out or the other node has no local rank k (nodes with
// different rank counts pair their common local ranks only).
int partner_of(int rank, const Round& round, const std::vector<std::vector<int>>& nodes,
               const std::vector<int>& node_of_rank);

}  // namespace commsweep::pairs
