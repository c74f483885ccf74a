// Which leaf switch (and which block / spine group above it) each node of a job hangs off: the
// input of the topology-aware pair planners. Pure: text in, typed records out; the readers
// (topology_readers.hpp) turn the clouds' own formats into a NamedTopology, bind() checks it
// against the job's nodes and numbers it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace commsweep::plan {

// Bad topology input: the message names the file, the node and what is wrong with it.
class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One node as a topology file names it.
struct Placement {
  std::string node;
  std::string leaf;   // the switch the node's NICs hang off (a "local block", a rack, a HyperNode of tier 1)
  std::string block;  // the group of leaves above it ("network block", spine, tier 2); "" when unknown
};

// Nodes chosen by a pattern (a Volcano HyperNode's regexMatch member): bound to the job's node
// names that match it whole (ECMAScript regex).
struct PatternPlacement {
  std::string pattern;
  std::string leaf;
  std::string block;
};

struct NamedTopology {
  std::string source;  // "FILE (OCI RDMA labels: leaf oci.oraclecloud.com/rdma.local_block_id ...)"
  std::vector<Placement> placements;
  std::vector<PatternPlacement> patterns;
};

// The topology over the nodes of one job, numbered as the job numbers them (0 .. n-1).
struct Topology {
  std::string source;                    // where it came from, or why it is flat
  std::vector<std::string> nodes;        // the job's node names
  std::vector<int> leaf_of;              // node -> leaf index
  std::vector<std::string> leaf_names;   // leaf index -> name
  std::vector<int> block_of_leaf;        // leaf index -> block index
  std::vector<std::string> block_names;  // block index -> name
  std::vector<std::string> notes;        // what was assumed: nodes outside the job, one-node leaves

  int node_count() const { return static_cast<int>(nodes.size()); }
  int leaf_count() const { return static_cast<int>(leaf_names.size()); }
  bool flat() const { return leaf_names.size() <= 1; }
  // The nodes of each leaf, in node order.
  std::vector<std::vector<int>> leaves() const;
};

// No topology given: one group of every node, and the source says so.
Topology flat_topology(const std::vector<std::string>& nodes);
Topology flat_topology(int nodes);  // nodes named "N0" .. for --plan --nodes N

// --plan --nodes N --per-leaf K [--leaves-per-block B]: a synthetic fabric of equal leaves.
Topology synthetic_topology(int nodes, int per_leaf, int leaves_per_block);

// The placements bound to the job's nodes: every job node must be placed exactly once (an
// unplaced job node or a node placed twice is a TopologyError naming it); nodes of the file
// outside the job are left out and said so in notes; a leaf holding one node of the job is
// kept, with a note (its node has no leaf mate: intra-leaf cannot test it, and a slow finding
// there cannot tell the node from its uplinks). A job node matches a placement by its whole
// name, by its short host name (before the first '.'), or, for an emulated node "host/ID", by ID.
Topology bind(const NamedTopology& named, const std::vector<std::string>& job_nodes);

// Every placement as the job would see it: the topology's own nodes (for --plan --topology).
Topology bind_all(const NamedTopology& named);

}  // namespace commsweep::plan
