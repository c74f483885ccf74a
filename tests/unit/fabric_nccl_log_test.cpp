// NCCL INFO logs read back: fixtures written from NCCL's log-line formats (RoCE with GPUDirect
// RDMA on two nodes, IB without GDR, a fall-back to sockets, SHM), and the real NVLink log of
// the 4 x H200 machine where ../shared/reference is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fabric/nccl_log.hpp"

namespace commsweep::fabric {
namespace {

std::vector<RankTransport> load(const std::vector<std::string>& names) {
  std::vector<RankTransport> ranks;
  for (const auto& n : names) {
    std::ifstream in(std::string(COMMSWEEP_NCCL_LOG_FIXTURES) + "/" + n);
    EXPECT_TRUE(in.good()) << n;
    auto some = parse_nccl_log(in);
    ranks.insert(ranks.end(), some.begin(), some.end());
  }
  return merge_ranks(ranks);
}

TEST(FabricNcclLog, RoceWithGdrOnTwoNodes) {
  const auto ranks = load({"roce_gdr.node-b.log", "roce_gdr.node-a.log"});
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].rank, 0);
  EXPECT_EQ(ranks[0].host, "node-a");
  EXPECT_EQ(ranks[1].rank, 1);
  EXPECT_EQ(ranks[0].network, "IB");
  EXPECT_EQ(ranks[0].hcas, (std::vector<std::string>{"mlx5_2:1/RoCE", "mlx5_3:1/RoCE"}));
  EXPECT_TRUE(ranks[0].roce());
  EXPECT_EQ(ranks[0].gdr, true);
  EXPECT_TRUE(ranks[0].dmabuf);
  EXPECT_EQ(ranks[0].channels, 2);
  EXPECT_EQ(ranks[0].peer_transport.at(1), "NET/IB");
  EXPECT_EQ(ranks[1].peer_transport.at(0), "NET/IB");
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::RoCE, true).empty());
  const auto ib = judge_transport(ranks, RequiredTransport::IB, false);
  ASSERT_EQ(ib.size(), 2u);
  EXPECT_NE(ib[0].find("not InfiniBand"), std::string::npos) << ib[0];
  EXPECT_EQ(judge_transport(ranks, RequiredTransport::Socket, false).size(), 2u);
}

TEST(FabricNcclLog, InfinibandWithoutGdr) {
  const auto ranks = load({"ib_nogdr.log"});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].rank, 8);
  EXPECT_EQ(ranks[0].nranks, 16);
  EXPECT_TRUE(ranks[0].ib());
  EXPECT_EQ(ranks[0].gdr, false);
  EXPECT_EQ(ranks[0].channels, 4);
  EXPECT_EQ(ranks[0].peer_transport.at(7), "NET/IB");
  EXPECT_EQ(ranks[0].peer_transport.at(9), "P2P");
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::IB, false).empty());
  const auto gdr = judge_transport(ranks, RequiredTransport::IB, true);
  ASSERT_EQ(gdr.size(), 1u);
  EXPECT_NE(gdr[0].find("rank 8 (host gpu-7, GPU 0) has GPUDirect RDMA off"), std::string::npos) << gdr[0];
}

TEST(FabricNcclLog, SocketFallbackIsCaught) {
  const auto ranks = load({"socket_fallback.log"});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].network, "Socket");
  EXPECT_EQ(ranks[0].hcas, std::vector<std::string>{"eth0:10.244.1.7<0>"});
  const auto problems = judge_transport(ranks, RequiredTransport::IB, false);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("used network Socket, not IB: NCCL fell back to sockets"), std::string::npos);
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::Socket, false).empty());
  EXPECT_EQ(judge_transport(ranks, RequiredTransport::Socket, true).size(), 1u);
}

TEST(FabricNcclLog, ShmIsNotNvlink) {
  const auto ranks = load({"shm_single_node.log"});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].peer_transport.at(1), "SHM");
  const auto p = judge_transport(ranks, RequiredTransport::NVLink, false);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("via SHM, not P2P"), std::string::npos);
}

TEST(FabricNcclLog, NothingParsedIsAFailureWhenRequired) {
  std::istringstream in("not a NCCL line\nhost:1:2 [0] NCCL WARN something\n");
  const auto ranks = parse_nccl_log(in);
  EXPECT_TRUE(ranks.empty());
  EXPECT_EQ(judge_transport(ranks, RequiredTransport::IB, false).size(), 1u);
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::Any, false).empty());
  EXPECT_THROW(parse_required_transport("tcp"), std::invalid_argument);
}

TEST(FabricNcclLog, RealNvlinkLogOfFourH200) {
  const std::string path = std::string(COMMSWEEP_SHARED_REFERENCE) + "/h200x4/nccl-debug-info-nvlink.log";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << path << " is absent (../shared/reference is only on the project's machines)";
  const auto ranks = parse_nccl_log(in);
  ASSERT_EQ(ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(ranks[r].rank, r);
    EXPECT_EQ(ranks[r].network, "Socket");
    EXPECT_EQ(ranks[r].graph_type, "NVL/PIX");
    EXPECT_EQ(ranks[r].channels, 24);
    for (const auto& [peer, kind] : ranks[r].peer_transport) EXPECT_EQ(kind, "P2P") << peer;
  }
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::NVLink, false).empty());
  EXPECT_EQ(judge_transport(ranks, RequiredTransport::IB, false).size(), 4u);
  std::cout << render_transport(ranks);
}

}  // namespace
}  // namespace commsweep::fabric

#include "fabric/nccl_log_capture.hpp"

namespace commsweep::fabric {
namespace {

// Without a GPU: the capture sets NCCL's variables, reads what lands in its folder (written
// here as NCCL would), and removes the folder and the variables at the end.
TEST(FabricNcclLogCapture, PrivateFolderReadAndRemoved) {
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_FILE");
  std::string folder;
  {
    NcclLogCapture capture;
    ASSERT_TRUE(capture.active());
    folder = capture.folder();
    EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "INFO");
    EXPECT_EQ(std::string(std::getenv("NCCL_DEBUG_FILE")), folder + "/nccl.%h.%p");
    std::ifstream in(std::string(COMMSWEEP_NCCL_LOG_FIXTURES) + "/socket_fallback.log");
    std::ofstream(folder + "/nccl.node-a.4101") << in.rdbuf();
    const auto ranks = capture.read();
    ASSERT_EQ(ranks.size(), 1u);
    EXPECT_EQ(ranks[0].network, "Socket");
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
  EXPECT_EQ(std::getenv("NCCL_DEBUG"), nullptr);
  setenv("NCCL_DEBUG", "WARN", 1);
  {
    NcclLogCapture capture;
    EXPECT_FALSE(capture.active());  // the user's own setting wins
  }
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
  unsetenv("NCCL_DEBUG");
}

}  // namespace
}  // namespace commsweep::fabric
