// Topology input of `commsweep pairs` (src/plan): the clouds' formats read into leaves and
// blocks (fixtures in tests/fixtures/plan, written as kubectl and Volcano print them), and bad
// input refused with the node named, or bound with a stated fallback.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "topology/network/topology.hpp"
#include "topology/network/topology_readers.hpp"

namespace commsweep::plan {
namespace {

std::string pairs_fixture(const std::string& name) {
  std::ifstream in(std::string(COMMSWEEP_PLAN_FIXTURES) + "/" + name);
  std::ostringstream out;
  out << in.rdbuf();
  EXPECT_FALSE(out.str().empty()) << name;
  return out.str();
}

std::string refusal(const std::string& text, const std::vector<std::string>& job = {}) {
  try {
    const NamedTopology named = parse_topology(text, "topo.yaml");
    if (job.empty()) bind_all(named);
    else bind(named, job);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "accepted";
}

std::string leaf_of(const Topology& t, const std::string& node) {
  for (int i = 0; i < t.node_count(); ++i) {
    if (t.nodes[i] == node) return t.leaf_names[t.leaf_of[i]] + "/" + t.block_names[t.block_of_leaf[t.leaf_of[i]]];
  }
  return "absent";
}

TEST(PairsTopology, OciRdmaLabelsFromKubectlJson) {
  const Topology t = bind_all(parse_topology(pairs_fixture("nodes-oci.json"), "nodes-oci.json"));
  EXPECT_NE(t.source.find("oci.oraclecloud.com/rdma.local_block_id"), std::string::npos) << t.source;
  ASSERT_EQ(t.node_count(), 8);
  EXPECT_EQ(t.leaf_count(), 3);
  EXPECT_EQ(leaf_of(t, "10.0.0.10"), "xvl2gga/sn4ibrza");
  EXPECT_EQ(leaf_of(t, "10.0.1.15"), "xvl2ggb/sn4ibrza");
  EXPECT_EQ(leaf_of(t, "10.0.1.17"), "xvl2ggc/sn4ibrzb");
}

TEST(PairsTopology, KueueTopologyLevelsNameTheLabels) {
  const Topology t = bind_all(parse_topology(pairs_fixture("nodes-kueue.yaml"), "nodes-kueue.yaml"));
  EXPECT_NE(t.source.find("Kueue Topology default"), std::string::npos) << t.source;
  EXPECT_EQ(leaf_of(t, "gpu-a2"), "r1/b1");
  EXPECT_EQ(leaf_of(t, "gpu-b1"), "r2/b1");
}

TEST(PairsTopology, TopographLabels) {
  const Topology t = bind_all(parse_topology(pairs_fixture("nodes-topograph.yaml"), "t.yaml"));
  EXPECT_EQ(leaf_of(t, "n2"), "s1/s5");
  EXPECT_EQ(leaf_of(t, "n3"), "s2/s5");
  ASSERT_EQ(t.notes.size(), 1u) << "n3 is alone in leaf s2";
  EXPECT_NE(t.notes[0].find("leaf s2 holds one node"), std::string::npos) << t.notes[0];
}

TEST(PairsTopology, VolcanoHyperNodesByNameAndPattern) {
  const NamedTopology named = parse_topology(pairs_fixture("hypernodes.yaml"), "hn.yaml");
  const Topology t = bind(named, {"node-0", "node-1", "node-2", "node-3"});
  EXPECT_EQ(leaf_of(t, "node-0"), "s0/s2");
  EXPECT_EQ(leaf_of(t, "node-3"), "s1/s2");
  // --plan without a job cannot enumerate a pattern.
  EXPECT_NE(refusal(pairs_fixture("hypernodes.yaml")).find("chooses nodes by pattern (node-[23])"), std::string::npos);
}

TEST(PairsTopology, HostsFileAndAliases) {
  const NamedTopology named = parse_topology(pairs_fixture("hosts.txt"), "hosts.txt");
  // Job nodes as hosts with domains, and an emulated node host/ID: matched by short name and by ID.
  const Topology t = bind(named, {"gpu001.cluster.local", "vm/gpu002", "gpu003", "gpu004"});
  EXPECT_EQ(leaf_of(t, "gpu001.cluster.local"), "leaf-a/spine-1");
  EXPECT_EQ(leaf_of(t, "vm/gpu002"), "leaf-a/spine-1");
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("1 node(s) of hosts.txt"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[0].find("not in this job"), std::string::npos);
}

TEST(PairsTopology, AbsentIsOneFlatGroupSaidSo) {
  const Topology t = flat_topology(std::vector<std::string>{"a", "b", "c"});
  EXPECT_TRUE(t.flat());
  EXPECT_NE(t.source.find("no topology given: one flat group of 3 nodes"), std::string::npos);
}

TEST(PairsTopology, BadInputIsRefusedNamingTheNode) {
  EXPECT_NE(refusal("a leaf1\nb leaf1\na leaf2\n").find("node a is placed twice (leaf leaf1 and leaf leaf2)"),
            std::string::npos);
  EXPECT_NE(refusal("a leaf1\nb leaf1\n", {"a", "b", "c"}).find("does not place node(s) of this job: c"),
            std::string::npos);
  EXPECT_NE(refusal("a leaf1 spine extra\n").find("topo.yaml:1:"), std::string::npos);
  EXPECT_NE(refusal("kind: Pod\nmetadata: {name: x}\n").find("kind 'Pod'"), std::string::npos);
  EXPECT_NE(refusal("kind: Node\nmetadata: {name: x, labels: {a: b}}\n").find("no node carries a leaf label"),
            std::string::npos);
  EXPECT_NE(refusal("kind: List\nitems:\n- kind: Node\n  metadata: {name: x, labels: {oci.oraclecloud.com/rdma.local_block_id: l}}\n"
                    "- kind: Node\n  metadata: {name: y}\n")
                .find("topo.yaml:5: node y has no label oci.oraclecloud.com/rdma.local_block_id"),
            std::string::npos);
  EXPECT_NE(refusal("kind: Node\nmetadata: {name: [x\n").find("topo.yaml:"), std::string::npos);
  // Nesting that would take yaml-cpp's recursion past the stack.
  EXPECT_NE(refusal(std::string(100000, '[')).find("nested deeper than 64 levels"), std::string::npos);
  std::string dashes;
  for (int i = 0; i < 1000; ++i) dashes += "- ";
  EXPECT_NE(refusal(dashes).find("indented deeper than 512 columns"), std::string::npos);
  // yaml-cpp 0.7's LoadAll loops for ever on this (one document at a time does not), and a
  // later document's error keeps the file's line number.
  EXPECT_NE(refusal(", kind: Node\n  m: x\n").find("no Node or HyperNode object"), std::string::npos);
  EXPECT_NE(refusal("a leaf\n---\nkind: Node\nmetadata: {name: [x\n").find("topo.yaml:"), std::string::npos);
  EXPECT_NE(refusal("kind: Node\nmetadata: {name: a, labels: {network.topology.kubernetes.io/block: l}}\n---\nkind: Node\nmetadata: {name: b}\n")
                .find("topo.yaml:4: node b has no label"),
            std::string::npos);
  // Patterns std::regex could spend the job's memory or time on.
  const std::string hn = "kind: HyperNode\nmetadata: {name: s0}\nspec:\n  members:\n  - {type: Node, selector: {regexMatch: {pattern: '";
  EXPECT_NE(refusal(hn + "n{99999}'}}}\n", {"n"}).find("a counted repetition"), std::string::npos);
  EXPECT_NE(refusal(hn + "(a*)*b'}}}\n", {"n"}).find("a quantified group (..)*"), std::string::npos);
  // Two job nodes that both go by one name in the file.
  EXPECT_NE(refusal("n1 leaf\nn2 leaf\n", {"h1/n1", "h2/n1", "n2"}).find("both match node n1"), std::string::npos);
  // A node chosen by name in one HyperNode and by pattern in another.
  const std::string twice =
      "kind: HyperNode\nmetadata: {name: s0}\nspec:\n  members:\n  - {type: Node, selector: {exactMatch: {name: n1}}}\n"
      "---\nkind: HyperNode\nmetadata: {name: s1}\nspec:\n  members:\n  - {type: Node, selector: {regexMatch: {pattern: 'n.*'}}}\n";
  EXPECT_NE(refusal(twice, {"n1", "n2"}).find("node n1 is placed twice"), std::string::npos);
  EXPECT_NE(refusal("kind: HyperNode\nmetadata: {name: s0}\nspec:\n  members:\n  - {type: Node, selector: {labelMatch: {matchLabels: {a: b}}}}\n")
                .find("add the Node objects"),
            std::string::npos);
}

}  // namespace
}  // namespace commsweep::plan
