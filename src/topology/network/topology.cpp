#include "topology/network/topology.hpp"

#include <deque>
#include <map>
#include <regex>
#include <unordered_map>

namespace commsweep::plan {
namespace {

std::string short_host(const std::string& name) { return name.substr(0, name.find('.')); }

// The names a job node may go by in a topology file, most specific first.
std::vector<std::string> aliases(const std::string& job_node) {
  std::vector<std::string> out{job_node};
  const auto slash = job_node.find('/');
  if (slash != std::string::npos) {
    out.push_back(job_node.substr(slash + 1));  // an emulated node: its NCCL_HOSTID
  } else if (short_host(job_node) != job_node) {
    out.push_back(short_host(job_node));
  }
  return out;
}

// Numbers the leaves and blocks in order of first appearance over the job's nodes.
Topology numbered(const std::string& source, const std::vector<std::string>& nodes,
                  const std::vector<const Placement*>& placed) {
  Topology t;
  t.source = source;
  t.nodes = nodes;
  std::map<std::string, int> leaf_index, block_index;
  for (const Placement* p : placed) {
    const std::string block = p->block.empty() ? "-" : p->block;
    // A leaf name is unique within its block only in some formats: key it by both.
    const std::string key = block + "\x1f" + p->leaf;
    auto [leaf, new_leaf] = leaf_index.emplace(key, t.leaf_count());
    if (new_leaf) {
      t.leaf_names.push_back(p->leaf);
      auto [b, new_block] = block_index.emplace(block, static_cast<int>(t.block_names.size()));
      if (new_block) t.block_names.push_back(block);
      t.block_of_leaf.push_back(b->second);
    }
    t.leaf_of.push_back(leaf->second);
  }
  return t;
}

void note_one_node_leaves(Topology& t) {
  const auto leaves = t.leaves();
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    if (leaves[l].size() != 1 || t.leaf_count() == 1) continue;
    t.notes.push_back("leaf " + t.leaf_names[l] + " holds one node of this job (" + t.nodes[leaves[l][0]] +
                      "): intra-leaf cannot test it, and a slow finding there names the node and its uplinks together");
  }
}

// The placement of a job node chosen by a pattern (stored in `matched`), or nullptr; two
// patterns of different leaves choosing it is an error.
const Placement* pattern_match(const NamedTopology& named, const std::string& node, std::deque<Placement>& matched) {
  const PatternPlacement* hit = nullptr;
  for (const auto& p : named.patterns) {
    bool match = false;
    // The reader checked the pattern (topology_readers.cpp); names are DNS names (253 at most).
    for (const auto& alias : aliases(node)) match = match || (alias.size() <= 253 && std::regex_match(alias, std::regex(p.pattern)));
    if (!match) continue;
    if (hit != nullptr && hit->leaf != p.leaf) {
      throw TopologyError(named.source + ": node " + node + " is placed twice (leaf " + hit->leaf + " by pattern " +
                          hit->pattern + " and leaf " + p.leaf + " by pattern " + p.pattern + ")");
    }
    hit = &p;
  }
  if (hit == nullptr) return nullptr;
  matched.push_back({"/" + hit->pattern + "/", hit->leaf, hit->block});
  return &matched.back();
}

void require_placements(const NamedTopology& named) {
  if (named.placements.empty() && named.patterns.empty()) throw TopologyError(named.source + ": places no node");
  std::unordered_map<std::string, const Placement*> seen;
  for (const auto& p : named.placements) {
    if (p.node.empty()) throw TopologyError(named.source + ": a node without a name");
    if (p.leaf.empty()) throw TopologyError(named.source + ": node " + p.node + " has no leaf");
    auto [it, fresh] = seen.emplace(p.node, &p);
    if (!fresh) {
      throw TopologyError(named.source + ": node " + p.node + " is placed twice (leaf " + it->second->leaf +
                          " and leaf " + p.leaf + "): which one is right cannot be guessed");
    }
  }
}

}  // namespace

std::vector<std::vector<int>> Topology::leaves() const {
  std::vector<std::vector<int>> out(leaf_names.size());
  for (int n = 0; n < node_count(); ++n) out[leaf_of[n]].push_back(n);
  return out;
}

Topology flat_topology(const std::vector<std::string>& nodes) {
  Topology t;
  t.source = "no topology given: one flat group of " + std::to_string(nodes.size()) +
             " nodes (intra-leaf and cross-leaf need --topology)";
  t.nodes = nodes;
  t.leaf_of.assign(nodes.size(), 0);
  t.leaf_names = {"all"};
  t.block_of_leaf = {0};
  t.block_names = {"-"};
  return t;
}

Topology flat_topology(int nodes) {
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) names.push_back("N" + std::to_string(i));
  return flat_topology(names);
}

Topology synthetic_topology(int nodes, int per_leaf, int leaves_per_block) {
  NamedTopology named;
  named.source = "synthetic: " + std::to_string(nodes) + " nodes, " + std::to_string(per_leaf) + " per leaf" +
                 (leaves_per_block > 0 ? ", " + std::to_string(leaves_per_block) + " leaves per block" : "");
  for (int i = 0; i < nodes; ++i) {
    const int leaf = i / per_leaf;
    named.placements.push_back({"N" + std::to_string(i), "leaf" + std::to_string(leaf),
                                leaves_per_block > 0 ? "block" + std::to_string(leaf / leaves_per_block) : ""});
  }
  return bind_all(named);
}

Topology bind(const NamedTopology& named, const std::vector<std::string>& job_nodes) {
  require_placements(named);
  std::unordered_map<std::string, const Placement*> by_name;
  for (const auto& p : named.placements) by_name.emplace(p.node, &p);
  std::vector<const Placement*> placed;
  std::unordered_map<const Placement*, std::string> taken;  // placement -> the job node that took it
  std::vector<std::string> unplaced;
  std::deque<Placement> matched;  // placements made for the job nodes a pattern chose
  for (const auto& node : job_nodes) {
    const Placement* found = nullptr;
    for (const auto& alias : aliases(node)) {
      const auto it = by_name.find(alias);
      if (it != by_name.end()) {
        found = it->second;
        break;
      }
    }
    const Placement* by_pattern = pattern_match(named, node, matched);
    if (found != nullptr && by_pattern != nullptr && by_pattern->leaf != found->leaf) {
      throw TopologyError(named.source + ": node " + node + " is placed twice (leaf " + found->leaf +
                          " by name and leaf " + by_pattern->leaf + " by pattern " + by_pattern->node + ")");
    }
    if (found == nullptr) found = by_pattern;
    if (found == nullptr) {
      unplaced.push_back(node);
      continue;
    }
    auto [it, fresh] = taken.emplace(found, node);
    if (!fresh) {
      throw TopologyError(named.source + ": job nodes " + it->second + " and " + node + " both match node " +
                          found->node + ": name the nodes as the job does");
    }
    placed.push_back(found);
  }
  if (!unplaced.empty()) {
    std::string list;
    for (std::size_t i = 0; i < unplaced.size() && i < 8; ++i) list += (i ? ", " : "") + unplaced[i];
    if (unplaced.size() > 8) list += ", ... (" + std::to_string(unplaced.size()) + " in all)";
    throw TopologyError(named.source + ": does not place node(s) of this job: " + list +
                        " (a plan over a partial topology would test their links as if they were anywhere)");
  }
  Topology t = numbered(named.source, job_nodes, placed);
  std::size_t outside = 0;
  for (const auto& p : named.placements) outside += taken.count(&p) == 0;
  if (outside > 0) {
    t.notes.push_back(std::to_string(outside) + " node(s) of " + named.source +
                      " are not in this job: left out of the plan");
  }
  note_one_node_leaves(t);
  return t;
}

Topology bind_all(const NamedTopology& named) {
  require_placements(named);
  if (!named.patterns.empty()) {
    throw TopologyError(named.source + ": chooses nodes by pattern (" + named.patterns.front().pattern +
                        "): the plan needs their names; run it inside the job, or list the nodes by exactMatch");
  }
  std::vector<std::string> nodes;
  std::vector<const Placement*> placed;
  for (const auto& p : named.placements) nodes.push_back(p.node), placed.push_back(&p);
  Topology t = numbered(named.source, nodes, placed);
  note_one_node_leaves(t);
  return t;
}

}  // namespace commsweep::plan
