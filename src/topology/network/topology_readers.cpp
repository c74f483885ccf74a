#include "topology/network/topology_readers.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <map>
#include <regex>
#include <sstream>

namespace commsweep::plan {
namespace {

constexpr const char* kHostname = "kubernetes.io/hostname";

struct LabelLevels {
  std::string name;  // where the levels came from
  std::string leaf;
  std::string block;  // "" when none
};

// The clouds' own label pairs, tried in this order when no Kueue Topology says which.
const std::vector<LabelLevels>& known_levels() {
  static const std::vector<LabelLevels> levels = {
      {"OCI RDMA labels", "oci.oraclecloud.com/rdma.local_block_id", "oci.oraclecloud.com/rdma.network_block_id"},
      {"network.topology.kubernetes.io labels", "network.topology.kubernetes.io/block",
       "network.topology.kubernetes.io/spine"},
  };
  return levels;
}

std::string where(const std::string& source, const YAML::Node& node) {
  const auto mark = node.Mark();
  return mark.line >= 0 ? source + ":" + std::to_string(mark.line + 1) : source;
}

// node[key], or a null node where node is not a map or lacks key (yaml-cpp throws on a chained
// lookup through a missing key).
YAML::Node child(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return YAML::Node();
  const YAML::Node value = node[key];
  return value ? value : YAML::Node();
}

YAML::Node path(const YAML::Node& node, std::initializer_list<const char*> keys) {
  YAML::Node at = node;
  for (const char* key : keys) at.reset(child(at, key));  // reset: operator= would write into the document
  return at;
}

std::string text_of(const YAML::Node& node) {
  return node && node.IsScalar() ? node.Scalar() : std::string();
}

struct Documents {
  std::vector<YAML::Node> nodes, hypernodes, topologies;
};

void collect(const YAML::Node& doc, const std::string& source, Documents& out) {
  if (!doc || doc.IsNull()) return;
  if (!doc.IsMap()) throw TopologyError(where(source, doc) + ": a document that is not a Kubernetes object");
  const std::string kind = text_of(child(doc, "kind"));
  if (kind == "List" || kind == "NodeList" || kind == "HyperNodeList") {
    const YAML::Node items = child(doc, "items");
    if (!items || !items.IsSequence()) throw TopologyError(where(source, doc) + ": " + kind + " without items");
    for (const auto& item : items) collect(item, source, out);
  } else if (kind == "Node") {
    out.nodes.push_back(doc);
  } else if (kind == "HyperNode") {
    out.hypernodes.push_back(doc);
  } else if (kind == "Topology") {
    out.topologies.push_back(doc);
  } else {
    throw TopologyError(where(source, doc) + ": kind '" + kind +
                        "' is not a Node, a HyperNode or a Kueue Topology (or a List of them)");
  }
}

std::map<std::string, std::string> labels_of(const YAML::Node& node) {
  std::map<std::string, std::string> out;
  const YAML::Node labels = path(node, {"metadata", "labels"});
  if (labels && labels.IsMap()) {
    for (const auto& kv : labels) out[kv.first.Scalar()] = text_of(kv.second);
  }
  return out;
}

std::string name_of(const YAML::Node& object, const std::string& source) {
  const std::string name = text_of(path(object, {"metadata", "name"}));
  if (name.empty()) throw TopologyError(where(source, object) + ": an object without metadata.name");
  return name;
}

LabelLevels levels_from_kueue(const YAML::Node& topology, const std::string& source) {
  const YAML::Node levels = path(topology, {"spec", "levels"});
  std::vector<std::string> labels;
  if (levels && levels.IsSequence()) {
    for (const auto& level : levels) {
      const std::string label = text_of(child(level, "nodeLabel"));
      if (!label.empty() && label != kHostname) labels.push_back(label);
    }
  }
  if (labels.empty()) {
    throw TopologyError(where(source, topology) + ": Kueue Topology " + name_of(topology, source) +
                        " has no level other than " + kHostname + ": no leaf to read");
  }
  return {"Kueue Topology " + name_of(topology, source), labels.back(),
          labels.size() >= 2 ? labels[labels.size() - 2] : ""};
}

LabelLevels choose_levels(const Documents& docs, const std::string& source) {
  if (docs.topologies.size() > 1) {
    throw TopologyError(source + ": " + std::to_string(docs.topologies.size()) +
                        " Kueue Topology objects: give the one whose levels describe this fabric");
  }
  if (!docs.topologies.empty()) return levels_from_kueue(docs.topologies.front(), source);
  for (const auto& levels : known_levels()) {
    for (const auto& node : docs.nodes) {
      if (labels_of(node).count(levels.leaf)) return levels;
    }
  }
  std::string known;
  for (const auto& levels : known_levels()) known += (known.empty() ? "" : ", ") + levels.leaf;
  throw TopologyError(source + ": no node carries a leaf label (" + known +
                      "), and no Kueue Topology names one: add the Topology object to the input");
}

NamedTopology from_node_labels(const Documents& docs, const std::string& source) {
  const LabelLevels levels = choose_levels(docs, source);
  NamedTopology out;
  out.source = source + " (" + levels.name + ": leaf " + levels.leaf +
               (levels.block.empty() ? "" : ", block " + levels.block) + ")";
  for (const auto& node : docs.nodes) {
    const auto labels = labels_of(node);
    const auto leaf = labels.find(levels.leaf);
    const std::string name = name_of(node, source);
    if (leaf == labels.end() || leaf->second.empty()) {
      throw TopologyError(where(source, node) + ": node " + name + " has no label " + levels.leaf);
    }
    const auto block = levels.block.empty() ? labels.end() : labels.find(levels.block);
    out.placements.push_back({name, leaf->second, block == labels.end() ? "" : block->second});
  }
  return out;
}

// --- Volcano HyperNodes ---

struct Member {
  std::string type;  // Node | HyperNode
  std::string exact, pattern;
  std::map<std::string, std::string> match_labels;
  YAML::Node at;
};

std::vector<Member> members_of(const YAML::Node& hypernode, const std::string& source) {
  std::vector<Member> out;
  const YAML::Node members = path(hypernode, {"spec", "members"});
  if (!members || !members.IsSequence()) {
    throw TopologyError(where(source, hypernode) + ": HyperNode " + name_of(hypernode, source) + " has no spec.members");
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    const YAML::Node m = members[i];
    Member member;
    member.at = m;
    member.type = text_of(child(m, "type"));
    if (member.type.empty()) member.type = "Node";
    const YAML::Node selector = child(m, "selector");
    member.exact = text_of(path(selector, {"exactMatch", "name"}));
    member.pattern = text_of(path(selector, {"regexMatch", "pattern"}));
    const YAML::Node labels = path(selector, {"labelMatch", "matchLabels"});
    if (labels && labels.IsMap()) {
      for (const auto& kv : labels) member.match_labels[kv.first.Scalar()] = text_of(kv.second);
    }
    const int kinds = !member.exact.empty() + !member.pattern.empty() + !member.match_labels.empty();
    if (kinds != 1) {
      throw TopologyError(where(source, m) + ": a member of HyperNode " + name_of(hypernode, source) +
                          " needs exactly one of selector.exactMatch.name, regexMatch.pattern, labelMatch.matchLabels");
    }
    if (member.type != "Node" && member.type != "HyperNode") {
      throw TopologyError(where(source, m) + ": member type '" + member.type + "' is not Node or HyperNode");
    }
    out.push_back(std::move(member));
  }
  return out;
}

// std::regex backtracks and builds its automaton eagerly: a counted repetition (x{9999}) or a
// quantified group ((a*)*) from a file could take the memory or the time of the whole job. The
// patterns HyperNodes use (node-[01], gpu-node-.*, worker-[0-9]+) need neither.
constexpr std::size_t kMaxPatternLength = 128;

void require_safe_pattern(const std::string& pattern, const YAML::Node& at, const std::string& source) {
  std::string why;
  if (pattern.size() > kMaxPatternLength) why = "longer than " + std::to_string(kMaxPatternLength) + " characters";
  if (pattern.find('{') != std::string::npos) why = "a counted repetition {..}";
  for (std::size_t i = 0; i + 1 < pattern.size() && why.empty(); ++i) {
    if (pattern[i] == ')' && std::string("*+?").find(pattern[i + 1]) != std::string::npos) why = "a quantified group (..)" + pattern.substr(i + 1, 1);
    if (pattern[i] == '\\' && std::isdigit(static_cast<unsigned char>(pattern[i + 1]))) why = "a back-reference";
  }
  if (!why.empty()) {
    throw TopologyError(where(source, at) + ": regexMatch pattern '" + pattern.substr(0, kMaxPatternLength) + "' has " + why +
                        ": use characters, '.', [classes], '*', '+', '?', '|' and plain groups");
  }
}

bool full_match(const std::string& pattern, const std::string& text, const YAML::Node& at, const std::string& source) {
  require_safe_pattern(pattern, at, source);
  try {
    return std::regex_match(text, std::regex(pattern));
  } catch (const std::regex_error& e) {
    throw TopologyError(where(source, at) + ": regexMatch pattern '" + pattern + "': " + e.what());
  }
}

NamedTopology from_hypernodes(const Documents& docs, const std::string& source) {
  NamedTopology out;
  out.source = source + " (Volcano HyperNodes: leaf = a HyperNode of Node members, block = the HyperNode above it)";
  std::map<std::string, std::vector<Member>> members;
  for (const auto& h : docs.hypernodes) {
    const std::string name = name_of(h, source);
    if (!members.emplace(name, members_of(h, source)).second) {
      throw TopologyError(where(source, h) + ": HyperNode " + name + " is described twice");
    }
  }
  // The block of each leaf: the HyperNode that has it as a member.
  std::map<std::string, std::string> parent;
  for (const auto& [name, list] : members) {
    for (const auto& m : list) {
      if (m.type != "HyperNode") continue;
      for (const auto& [child, unused] : members) {
        const bool chosen = !m.exact.empty() ? child == m.exact : !m.pattern.empty() && full_match(m.pattern, child, m.at, source);
        if (!chosen) continue;
        auto [it, fresh] = parent.emplace(child, name);
        if (!fresh && it->second != name) {
          throw TopologyError(where(source, m.at) + ": HyperNode " + child + " is a member of both " + it->second +
                              " and " + name);
        }
      }
    }
  }
  for (const auto& [name, list] : members) {
    const auto up = parent.find(name);
    const std::string block = up == parent.end() ? "" : up->second;
    for (const auto& m : list) {
      if (m.type != "Node") continue;
      if (!m.exact.empty()) {
        out.placements.push_back({m.exact, name, block});
      } else if (!m.pattern.empty()) {
        full_match(m.pattern, "", m.at, source);  // a bad pattern is an error now, not at bind time
        out.patterns.push_back({m.pattern, name, block});
      } else {
        if (docs.nodes.empty()) {
          throw TopologyError(where(source, m.at) + ": HyperNode " + name +
                              " selects nodes by labelMatch: add the Node objects (kubectl get nodes -o yaml) to the input");
        }
        for (const auto& node : docs.nodes) {
          const auto labels = labels_of(node);
          bool all = true;
          for (const auto& [k, v] : m.match_labels) all = all && labels.count(k) && labels.at(k) == v;
          if (all) out.placements.push_back({name_of(node, source), name, block});
        }
      }
    }
  }
  if (out.placements.empty() && out.patterns.empty()) {
    throw TopologyError(source + ": no HyperNode has Node members: no leaf to read");
  }
  return out;
}

// --- hosts-to-switch ---

bool looks_like_hosts_file(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    if (line.compare(first, 3, "---") == 0) return false;
    return line.find(':') == std::string::npos && line[first] != '{' && line[first] != '[' && line[first] != '-';
  }
  return false;
}

NamedTopology from_hosts_file(const std::string& text, const std::string& source) {
  NamedTopology out;
  out.source = source + " (hosts-to-switch: NODE LEAF [BLOCK])";
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    std::istringstream fields(line.substr(0, hash));
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (words.size() > 3 || words.size() < 2) {
      throw TopologyError(source + ":" + std::to_string(number) + ": '" + line +
                          "' is not NODE LEAF [BLOCK] (" + std::to_string(words.size()) + " fields)");
    }
    out.placements.push_back({words[0], words[1], words.size() == 3 ? words[2] : ""});
  }
  if (out.placements.empty()) throw TopologyError(source + ": places no node");
  return out;
}

// yaml-cpp recurses once per level of nesting (flow: [[[[..., block: indentation, "- - - -"):
// a file of a few kilobytes could overflow the stack. No topology nests deeper than a dozen
// levels or indents a line by more than a few dozen columns.
constexpr int kMaxFlowDepth = 64;
constexpr std::size_t kMaxIndent = 512;  // leading spaces, tabs and "- " of one line

void require_shallow(const std::string& text, const std::string& source) {
  int depth = 0, line = 1;
  char quote = 0;
  std::size_t indent = 0;
  bool leading = true;
  for (char c : text) {
    if (c == '\n') ++line, indent = 0, leading = true;
    else if (leading && (c == ' ' || c == '\t' || c == '-')) ++indent;
    else leading = false;
    if (indent > kMaxIndent) {
      throw TopologyError(source + ":" + std::to_string(line) + ": indented deeper than " + std::to_string(kMaxIndent) +
                          " columns: not a topology");
    }
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (depth > kMaxFlowDepth) {
      throw TopologyError(source + ":" + std::to_string(line) + ": nested deeper than " + std::to_string(kMaxFlowDepth) +
                          " levels of [ and {: not a topology");
    }
  }
}

// The YAML documents of `text`, split at "---" lines, each padded with the newlines before it so
// that yaml-cpp's line numbers stay those of the file. Not YAML::LoadAll: yaml-cpp 0.7 loops
// for ever on some malformed input (", k: v"), each turn another empty document, until memory
// runs out (found by tests/fuzz/plan_topology_fuzz); YAML::Load stops after one document.
std::vector<std::string> split_documents(const std::string& text) {
  std::vector<std::string> docs(1);
  std::size_t line = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l); ++line) {
    const bool marker = l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker) {
      docs.push_back(std::string(line, '\n') + l.substr(3) + "\n");  // the lines before as newlines, then the marker's rest
      continue;
    }
    docs.back() += l + "\n";
  }
  return docs;
}

}  // namespace

NamedTopology parse_topology(const std::string& text, const std::string& source) {
  if (looks_like_hosts_file(text)) return from_hosts_file(text, source);
  require_shallow(text, source);
  Documents docs;
  try {
    for (const auto& doc : split_documents(text)) collect(YAML::Load(doc), source, docs);
    if (!docs.hypernodes.empty()) return from_hypernodes(docs, source);
    if (!docs.nodes.empty()) return from_node_labels(docs, source);
  } catch (const YAML::Exception& e) {
    throw TopologyError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  throw TopologyError(source + ": no Node or HyperNode object, and not a NODE LEAF [BLOCK] file");
}

}  // namespace commsweep::plan
