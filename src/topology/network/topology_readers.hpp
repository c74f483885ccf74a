// Topology input as the clusters publish it, read into a NamedTopology (topology.hpp):
//  - Kubernetes nodes (`kubectl get nodes -o json` or -o yaml: a List of Node objects): the leaf
//    and block from their labels. The levels are those of a Kueue Topology object given in the
//    same input (spec.levels, top to bottom: the lowest level other than kubernetes.io/hostname
//    is the leaf, the one above it the block); without one, the first label pair present of
//      OCI:       oci.oraclecloud.com/rdma.local_block_id (leaf), rdma.network_block_id (block)
//      Topograph: network.topology.kubernetes.io/block (leaf), network.topology.kubernetes.io/spine (block)
//  - Volcano HyperNodes (topology.volcano.sh/v1alpha1, one document each or a List): a HyperNode
//    whose members are Nodes is a leaf; the HyperNode that has it as a member is its block.
//    Members by exactMatch, regexMatch (matched against the job's node names) or labelMatch
//    (needs the Node objects in the same input).
//  - A hosts-to-switch file: one "NODE LEAF [BLOCK]" per line, '#' comments.
// Several inputs may be concatenated (YAML documents separated by ---). Pure: yaml-cpp reads
// YAML and JSON alike.
#pragma once

#include <string>

#include "topology/network/topology.hpp"

namespace commsweep::plan {

// Throws TopologyError naming `source`, the line where it can, and what is wrong.
NamedTopology parse_topology(const std::string& text, const std::string& source);

}  // namespace commsweep::plan
