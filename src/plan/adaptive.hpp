// The adaptive follow-up of `commsweep pairs --adaptive`: from the pairs measured so far (slow
// or not), name what is at fault, and plan the next rounds that re-test only the nodes a slow
// pair implicates, until each finding names one node or one link group.
//
// The rules, on the evidence of every pair measured (a node's "mates" share its leaf):
//  - leaf uplinks: two or more nodes of a leaf (all of its nodes measured across leaves) are
//    slow in every pair across leaves, and fine with a mate: the nodes work, the leaf's way out
//    does not.
//  - node: slow in every pair it is in, with two or more partners that are fine with someone
//    else, and (where it has mates) slow with a mate too: not its leaf's uplinks.
//    A node alone in its leaf cannot be told from its uplinks: the finding says so.
//  - link: a pair slow every time it was measured (twice or more) whose two nodes are each fine
//    with someone else (a cable, a spine path); slow once, it is measured again (chance, on a
//    loaded host, is not a finding). Each pair counts by its last measurement.
//  - unresolved: anything else; the follow-up re-tests its nodes (or the pair).
// Pure: no MPI, no timing, only which pairs were slow.
#pragma once

#include <string>
#include <vector>

#include "plan/planners.hpp"
#include "topology/network/topology.hpp"

namespace commsweep::plan {

struct Observation {
  int a = 0;
  int b = 0;
  bool slow = false;
};

enum class FindingKind { Node, LeafUplinks, Link, Unresolved };

struct Finding {
  FindingKind kind = FindingKind::Unresolved;
  int node = -1;        // Node; Link: one end; Unresolved: the node it concerns
  int other = -1;       // Link, and an unresolved pair: the other end
  int leaf = -1;        // LeafUplinks
  std::string why;      // the evidence, in words (node names from the topology)
};

const char* finding_kind_name(FindingKind kind);  // "node", "leaf-uplinks", "link", "unresolved"

std::vector<Finding> localise(const Topology& topology, const std::vector<Observation>& evidence);

// The next rounds: each node of an unresolved finding, or in a slow pair whose finding is not yet
// confirmed by a pair measured after it, meets up to two fresh partners that are fine so far:
// a mate and a node of another leaf (its leaf not suspect). Empty when nothing is left to test.
std::vector<Round> followup(const Topology& topology, const std::vector<Observation>& evidence,
                            const std::vector<Finding>& findings, int step);

}  // namespace commsweep::plan
