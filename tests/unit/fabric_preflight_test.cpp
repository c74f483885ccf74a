// The preflight table of the fixture trees against golden text, the brief summary, and the
// JSON a node sends to rank 0 read back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fabric/preflight.hpp"
#include "fabric/preflight_table.hpp"

namespace commsweep::fabric {
namespace {

const std::string kFixtures = COMMSWEEP_SYSFS_FIXTURES;

NodeReport fixture_node(const std::string& name, std::vector<std::string> env, const std::string& host) {
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  PreflightOptions options;
  options.sysfs_root = kFixtures + "/" + name;
  NodeReport node = check_node(options, envp.data());
  node.host = host;
  node.ranks = 8;
  return node;
}

// The fixtures' folder differs between checkouts.
std::string portable(std::string text) {
  for (size_t at; (at = text.find(kFixtures)) != std::string::npos;) text.replace(at, kFixtures.size(), "<fixtures>");
  return text;
}

std::string golden(const std::string& name) {
  std::ifstream in(std::string(COMMSWEEP_GOLDEN_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing golden file " << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<NodeReport> two_nodes() {
  return {fixture_node("ib", {}, "gpu-ib-1"),
          fixture_node("roce_sriov", {"NCCL_IB_GID_INDEX=1", "NCCL_IB_HCA==mlx5_2,mlx5_5"}, "gpu-roce-2")};
}

TEST(FabricPreflight, TableOfFixtureTrees) {
  const std::string text = portable(render_preflight_table(two_nodes()));
  // COMMSWEEP_WRITE_GOLDEN=1 rewrites the golden file after a deliberate change (review the diff).
  if (std::getenv("COMMSWEEP_WRITE_GOLDEN"))
    std::ofstream(std::string(COMMSWEEP_GOLDEN_DIR) + "/preflight_fixtures.txt") << text;
  EXPECT_EQ(text, golden("preflight_fixtures.txt"));
}

TEST(FabricPreflight, BriefSummaryShowsFailsOnly) {
  const std::string text = render_preflight_brief(two_nodes());
  EXPECT_EQ(text.rfind("# preflight: 19 PASS, 6 WARN, 5 FAIL on 2 hosts", 0), 0u) << text;
  EXPECT_EQ(text.find("PASS    "), std::string::npos) << text;
  EXPECT_NE(text.find("gpu-roce-2  env"), std::string::npos) << text;
}

TEST(FabricPreflight, JsonRoundTrip) {
  const auto nodes = two_nodes();
  const NodeReport back = node_from_json(nlohmann::json::parse(to_json(nodes[1]).dump()));
  EXPECT_EQ(back.host, "gpu-roce-2");
  ASSERT_EQ(back.checks.size(), nodes[1].checks.size());
  for (size_t i = 0; i < back.checks.size(); ++i) {
    EXPECT_EQ(back.checks[i].name, nodes[1].checks[i].name);
    EXPECT_EQ(back.checks[i].status, nodes[1].checks[i].status);
    EXPECT_EQ(back.checks[i].fix, nodes[1].checks[i].fix);
  }
  const auto doc = preflight_json(nodes);
  EXPECT_EQ(doc["schema"], "commsweep.preflight/1");
  EXPECT_EQ(doc["summary"]["ok"], false);
  EXPECT_EQ(doc["hosts"][1]["rdma_devices"][1]["ports"][0]["nccl_gid_index"], 3);
  EXPECT_THROW(status_from_string("MAYBE"), std::invalid_argument);
}

}  // namespace
}  // namespace commsweep::fabric
