#include "plan/adaptive.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace commsweep::plan {
namespace {

struct NodeEvidence {
  int slow_mate = 0, ok_mate = 0, slow_across = 0, ok_across = 0;
  std::set<int> slow_partners;
  bool witness() const { return ok_mate + ok_across > 0; }  // fine with someone: the node works
  bool implicated() const { return slow_mate + slow_across > 0; }
};

struct PairHistory {
  int measured = 0;
  int slow = 0;
  bool last_slow = false;
};

using PairKey = std::pair<int, int>;  // a < b

// Per pair: how often measured, how often slow, and the last verdict; in pair order. A sorted
// vector, not a map: 8.4 million pairs at 4,096 nodes.
std::vector<std::pair<PairKey, PairHistory>> histories(const std::vector<Observation>& evidence) {
  std::vector<std::pair<PairKey, std::size_t>> order;  // stable sort keeps the measurement order per pair
  order.reserve(evidence.size());
  for (std::size_t i = 0; i < evidence.size(); ++i) {
    order.push_back({{std::min(evidence[i].a, evidence[i].b), std::max(evidence[i].a, evidence[i].b)}, i});
  }
  std::sort(order.begin(), order.end());
  std::vector<std::pair<PairKey, PairHistory>> out;
  for (const auto& [key, i] : order) {
    if (out.empty() || out.back().first != key) out.push_back({key, {}});
    auto& h = out.back().second;
    ++h.measured;
    h.slow += evidence[i].slow;
    h.last_slow = evidence[i].slow;
  }
  return out;
}

// Each pair counts once, by its last measurement: a pair slow by chance and fine when re-tested
// is fine.
std::vector<NodeEvidence> tally(const Topology& t, const std::vector<Observation>& evidence) {
  std::vector<NodeEvidence> e(static_cast<std::size_t>(t.node_count()));
  for (const auto& [pair, h] : histories(evidence)) {
    const Observation o{pair.first, pair.second, h.last_slow};
    const bool mates = t.leaf_of[o.a] == t.leaf_of[o.b];
    for (const auto& [x, y] : {std::pair{o.a, o.b}, std::pair{o.b, o.a}}) {
      auto& n = e[x];
      if (o.slow) {
        (mates ? n.slow_mate : n.slow_across)++;
        n.slow_partners.insert(y);
      } else {
        (mates ? n.ok_mate : n.ok_across)++;
      }
    }
  }
  return e;
}

std::string name(const Topology& t, int node) { return t.nodes[node]; }

// Every node of the leaf measured across leaves and slow in each such pair, two or more of
// them, fine with a mate where the leaf has two nodes or more, and their partners fine elsewhere.
bool uplinks_slow(const Topology& t, const std::vector<NodeEvidence>& e, const std::vector<int>& leaf) {
  int slow_everywhere_across = 0;
  bool fine_with_mate = leaf.size() < 2, partner_witness = false;
  for (int n : leaf) {
    if (e[n].slow_across == 0 || e[n].ok_across > 0) return false;
    ++slow_everywhere_across;
    fine_with_mate = fine_with_mate || e[n].ok_mate > 0;
    for (int p : e[n].slow_partners) partner_witness = partner_witness || (t.leaf_of[p] != t.leaf_of[n] && e[p].witness());
  }
  return slow_everywhere_across >= 2 && fine_with_mate && partner_witness;
}

Finding node_finding(const Topology& t, const std::vector<NodeEvidence>& e, int x, int leaf_size) {
  const auto& n = e[x];
  int witnesses = 0;
  for (int p : n.slow_partners) witnesses += e[p].witness();
  Finding f;
  f.node = x;
  const std::string pairs = std::to_string(n.slow_mate + n.slow_across) + " slow pair(s) with " +
                            std::to_string(n.slow_partners.size()) + " partner(s), " + std::to_string(witnesses) +
                            " of them fine with others";
  if (n.witness() || witnesses < 2) {
    f.kind = FindingKind::Unresolved;
    f.why = name(t, x) + ": " + pairs + (n.witness() ? ", and fine in some pairs" : "");
    return f;
  }
  if (leaf_size >= 2 && n.slow_mate == 0) {
    f.kind = FindingKind::Unresolved;
    f.why = name(t, x) + ": " + pairs + ", none with a mate of its leaf yet (the node, or its leaf's uplinks?)";
    return f;
  }
  f.kind = FindingKind::Node;
  f.why = name(t, x) + ": " + pairs + ", fine in none" +
          (leaf_size < 2 ? "; alone in leaf " + t.leaf_names[t.leaf_of[x]] + ": the node or that leaf's uplinks"
                         : " (slow with " + std::to_string(n.slow_mate) + " mate(s) of its leaf too)");
  return f;
}

}  // namespace

const char* finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::Node: return "node";
    case FindingKind::LeafUplinks: return "leaf-uplinks";
    case FindingKind::Link: return "link";
    case FindingKind::Unresolved: return "unresolved";
  }
  return "?";
}

std::vector<Finding> localise(const Topology& t, const std::vector<Observation>& evidence) {
  const auto e = tally(t, evidence);
  const auto leaves = t.leaves();
  std::vector<Finding> out;
  std::vector<bool> leaf_named(leaves.size(), false), node_named(e.size(), false);
  for (std::size_t l = 0; l < leaves.size() && !t.flat(); ++l) {
    if (!uplinks_slow(t, e, leaves[l])) continue;
    leaf_named[l] = true;
    Finding f;
    f.kind = FindingKind::LeafUplinks;
    f.leaf = static_cast<int>(l);
    f.why = "leaf " + t.leaf_names[l] + ": its " + std::to_string(leaves[l].size()) +
            " node(s) slow in every pair across leaves and fine with their mates";
    out.push_back(std::move(f));
  }
  std::set<int> unresolved;
  for (int x = 0; x < t.node_count(); ++x) {
    if (!e[x].implicated() || leaf_named[t.leaf_of[x]]) continue;
    if (e[x].witness()) continue;  // fine with someone: its slow pairs are judged as links below
    Finding f = node_finding(t, e, x, static_cast<int>(leaves[t.leaf_of[x]].size()));
    if (f.kind == FindingKind::Node) node_named[x] = true, out.push_back(std::move(f));
    else unresolved.insert(x), out.push_back(std::move(f));
  }
  for (const auto& [pair, h] : histories(evidence)) {
    const Observation o{pair.first, pair.second, h.last_slow};
    if (!o.slow || node_named[o.a] || node_named[o.b]) continue;
    const bool across = t.leaf_of[o.a] != t.leaf_of[o.b];
    if (across && (leaf_named[t.leaf_of[o.a]] || leaf_named[t.leaf_of[o.b]])) continue;
    if (unresolved.count(o.a) || unresolved.count(o.b)) continue;
    Finding f;
    f.node = o.a;
    f.other = o.b;
    if (h.measured < 2 || h.slow < h.measured) {
      // Slow once: a link, or chance (a loaded host); the follow-up measures the pair again.
      f.kind = FindingKind::Unresolved;
      f.why = name(t, o.a) + " <-> " + name(t, o.b) + ": slow " + std::to_string(h.slow) + " of " +
              std::to_string(h.measured) + " time(s), each fine with others: measured again";
      out.push_back(std::move(f));
      continue;
    }
    f.kind = FindingKind::Link;
    f.why = name(t, f.node) + " <-> " + name(t, f.other) + ": slow together, each fine with others (" +
            (across ? "a cable or the path between leaves " + t.leaf_names[t.leaf_of[o.a]] + " and " + t.leaf_names[t.leaf_of[o.b]]
                    : "a cable or a port of leaf " + t.leaf_names[t.leaf_of[o.a]]) + ")";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Round> followup(const Topology& t, const std::vector<Observation>& evidence,
                            const std::vector<Finding>& findings, int step) {
  const auto e = tally(t, evidence);
  const auto history = histories(evidence);
  std::map<PairKey, int> added;  // pairs this follow-up measures
  // How often the pair has been measured, this follow-up's included.
  auto times = [&](int x, int y) {
    const PairKey key{std::min(x, y), std::max(x, y)};
    const auto h = std::lower_bound(history.begin(), history.end(), std::make_pair(key, PairHistory{}),
                                    [](const auto& p, const auto& q) { return p.first < q.first; });
    const auto a = added.find(key);
    return (h != history.end() && h->first == key ? h->second.measured : 0) + (a == added.end() ? 0 : a->second);
  };
  std::set<int> targets;
  std::vector<bool> leaf_suspect(static_cast<std::size_t>(t.leaf_count()), false);
  for (const auto& f : findings) {
    if (f.kind == FindingKind::LeafUplinks) leaf_suspect[f.leaf] = true;
    if (f.kind == FindingKind::Unresolved && f.other < 0) targets.insert(f.node);
  }
  std::vector<NodePair> pairs;
  // A pair slow once between nodes fine with others: the same pair once more.
  for (const auto& f : findings) {
    if (f.kind != FindingKind::Unresolved || f.other < 0 || times(f.node, f.other) >= 3) continue;
    ++added[{std::min(f.node, f.other), std::max(f.node, f.other)}];
    pairs.push_back({std::min(f.node, f.other), std::max(f.node, f.other)});
  }
  // The first follow-up re-tests every node a slow pair implicates; later ones only what is open.
  if (step == 1) {
    for (int x = 0; x < t.node_count(); ++x) {
      if (e[x].implicated()) targets.insert(x);
    }
  }
  std::vector<int> used(static_cast<std::size_t>(t.node_count()), 0);
  // A reference partner: a node fine so far (for a mate, another suspect of the leaf will do:
  // two nodes of a leaf fine together while slow across clear the nodes and blame the uplinks),
  // not measured with x yet; in the first follow-up, a pair measured before if nothing is fresh.
  auto pick = [&](int x, bool mate) {
    int best = -1, best_rank = 0;
    for (int c = 0; c < t.node_count(); ++c) {
      if (c == x || (t.leaf_of[c] == t.leaf_of[x]) != mate || (!mate && leaf_suspect[t.leaf_of[c]])) continue;
      const bool suspect = e[c].implicated() || targets.count(c);
      if (suspect && !mate) continue;
      const int before = times(x, c);
      const bool again = before > 0;
      if (again && (step != 1 || before > 1)) continue;
      const int rank = (again ? 4 : 0) + (suspect ? 2 : 0);  // fresh and clean partners first, then the least used
      if (best < 0 || rank < best_rank || (rank == best_rank && used[c] < used[best])) best = c, best_rank = rank;
    }
    return best;
  };
  for (int x : targets) {
    for (bool mate : {true, false}) {
      const int c = pick(x, mate);
      if (c < 0) continue;
      ++used[c];
      ++added[{std::min(x, c), std::max(x, c)}];
      pairs.push_back({std::min(x, c), std::max(x, c)});
    }
  }
  return pack_rounds(pairs, "follow-up " + std::to_string(step));
}

}  // namespace commsweep::plan
