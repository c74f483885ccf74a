// The per-rank transport report and the --require-transport / --require-gdr rules on NCCL log
// fixtures written from NCCL 2.28's INFO line formats: four processes on NVLink, two emulated
// nodes over sockets (NCCL_HOSTID), an 8-GPU IB node with GPUDirect RDMA and PXN, RoCE with SHM
// and no GDR. Then rank 0's assembly of the gathered messages (run/run_transport.hpp), the
// capture's three modes, and the results JSON with a "transport" record.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#if COMMSWEEP_HAVE_NCCL_BACKEND
#include <nccl.h>
#endif

#include "run/run_transport.hpp"
#include "fabric/nccl_log_capture.hpp"
#include "fabric/host_checks.hpp"
#include "fabric/transport_report.hpp"
#include "report/json.hpp"

namespace commsweep::fabric {
namespace {

namespace fs = std::filesystem;
const std::string kLogs = COMMSWEEP_NCCL_LOG_FIXTURES;

std::vector<RankTransport> transport_load(const std::vector<std::string>& paths) {
  std::vector<RankTransport> ranks;
  for (const auto& p : paths) {
    std::ifstream in(kLogs + "/" + p);
    EXPECT_TRUE(in.good()) << p;
    auto some = parse_nccl_log(in);
    ranks.insert(ranks.end(), some.begin(), some.end());
  }
  return merge_ranks(ranks);
}

std::vector<RankTransport> load_folder(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(kLogs + "/" + folder)) files.push_back(folder + "/" + e.path().filename().string());
  return transport_load(files);
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(FabricTransport, FourProcessesOnNvlinkAgreeOnOneLine) {
  const auto ranks = load_folder("nvlink4");
  ASSERT_EQ(ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(ranks[r].rank, r);
    EXPECT_EQ(ranks[r].cuda_dev, r);
    EXPECT_EQ(ranks[r].network, "Socket");
    EXPECT_EQ(ranks[r].channels, 24);
    EXPECT_EQ(ranks[r].graph_type, "NVL/PIX");
    EXPECT_EQ(ranks[r].gdr, false);
    EXPECT_EQ(ranks[r].peer_transport.size(), 3u) << "the alltoall probe connects every peer";
    for (const auto& [peer, kind] : ranks[r].peer_transport) EXPECT_EQ(kind, "P2P") << peer;
  }
  EXPECT_EQ(render_transport_summary(ranks),
            std::vector<std::string>{
                "4 ranks alike: network Socket [eth0], GDR off, 24 channels, graph NVL/PIX, peers via P2P"});
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::NVLink, false).empty());
  const auto ib = judge_transport(ranks, RequiredTransport::IB, false);
  ASSERT_EQ(ib.size(), 4u);
  EXPECT_EQ(ib[2], "rank 2 (host gpunode, GPU 2) used network Socket, not IB: NCCL fell back to sockets");
  const auto gdr = judge_transport(ranks, RequiredTransport::NVLink, true);
  ASSERT_EQ(gdr.size(), 4u);
  EXPECT_NE(gdr[0].find("has GPUDirect RDMA off"), std::string::npos) << gdr[0];
}

TEST(FabricTransport, TwoEmulatedNodesUseSocketsBetweenThem) {
  const auto ranks = load_folder("emulated2x2");
  ASSERT_EQ(ranks.size(), 4u);
  EXPECT_EQ(ranks[0].peer_transport,
            (std::map<int, std::string>{{1, "P2P"}, {2, "NET/Socket"}, {3, "NET/Socket"}}));
  EXPECT_EQ(ranks[3].peer_transport,
            (std::map<int, std::string>{{0, "NET/Socket"}, {1, "NET/Socket"}, {2, "P2P"}}));
  EXPECT_EQ(render_transport_summary(ranks),
            std::vector<std::string>{
                "4 ranks alike: network Socket [eth0], GDR off, 2 channels, graph NVL/PHB, peers via NET/Socket, P2P"});
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::Socket, false).empty());
  const auto ib = judge_transport(ranks, RequiredTransport::IB, false);
  ASSERT_EQ(ib.size(), 4u);
  EXPECT_NE(ib[1].find("rank 1 (host gpunode, GPU 1) used network Socket, not IB"), std::string::npos) << ib[1];
  const auto roce = judge_transport(ranks, RequiredTransport::RoCE, false);
  EXPECT_NE(roce[0].find("not IB/RoCE: NCCL fell back to sockets"), std::string::npos) << roce[0];
  const auto nvlink = judge_transport(ranks, RequiredTransport::NVLink, false);
  ASSERT_EQ(nvlink.size(), 4u);
  EXPECT_EQ(nvlink[0], "rank 0 (host gpunode, GPU 0) reaches rank 2 via NET/Socket, not P2P (NVLink)");
}

TEST(FabricTransport, InfinibandWithGdrAndPxn) {
  const auto ranks = transport_load({"ib8_gdr_pxn.log"});
  ASSERT_EQ(ranks.size(), 1u);
  const auto& r = ranks[0];
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.nranks, 16);
  EXPECT_EQ(r.network, "IB");
  EXPECT_EQ(r.hcas.size(), 4u);
  EXPECT_EQ(link_of(r), "IB");
  EXPECT_EQ(r.gdr, true);
  EXPECT_TRUE(r.dmabuf);
  EXPECT_EQ(r.channels, 16);
  EXPECT_EQ(r.peer_transport, (std::map<int, std::string>{{4, "P2P"}, {11, "NET/IB"}}));
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::IB, true).empty());
  const auto roce = judge_transport(ranks, RequiredTransport::RoCE, false);
  ASSERT_EQ(roce.size(), 1u);
  EXPECT_NE(roce[0].find("not RoCE (mlx5_0:1/IB)"), std::string::npos) << roce[0];
  EXPECT_EQ(render_transport_summary(ranks),
            std::vector<std::string>{"1 rank: network IB [mlx5_0:1/IB mlx5_3:1/IB mlx5_4:1/IB mlx5_5:1/IB] IB, GDR on "
                                     "(DMA-BUF), 16 channels, graph NVL/PXB, peers via NET/IB, P2P"});
}

TEST(FabricTransport, RoceWithShmAndNoGdr) {
  const auto ranks = transport_load({"roce_shm_nogdr.log"});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(link_of(ranks[0]), "RoCE");
  EXPECT_EQ(ranks[0].gdr, false);
  // SHM's line has no connection index: "Channel 00 : 1[1] -> 0[0] via SHM/direct".
  EXPECT_EQ(ranks[0].peer_transport, (std::map<int, std::string>{{0, "SHM"}, {2, "NET/IB"}}));
  EXPECT_TRUE(judge_transport(ranks, RequiredTransport::RoCE, false).empty());
  const auto gdr = judge_transport(ranks, RequiredTransport::RoCE, true);
  ASSERT_EQ(gdr.size(), 1u);
  EXPECT_EQ(gdr[0], "rank 1 (host l40s-3, GPU 1) has GPUDirect RDMA off");
  EXPECT_NE(judge_transport(ranks, RequiredTransport::IB, false)[0].find("not InfiniBand"), std::string::npos);
}

TEST(FabricTransport, RanksThatDifferGetALineEach) {
  const auto ranks = transport_load({"ib8_gdr_pxn.log", "roce_shm_nogdr.log"});
  const auto lines = render_transport_summary(ranks);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("rank 1 (host l40s-3, GPU 1): network IB [mlx5_2:1/RoCE mlx5_3:1/RoCE] RoCE, GDR off", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("rank 3 (host dgx-b07, GPU 3): network IB", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("peers 4:P2P 11:NET/IB"), std::string::npos) << lines[1];
}

TEST(FabricTransport, SocketAddressesAreNotPartOfTheDeviceName) {
  EXPECT_EQ(device_name("eth0:10.244.1.7<0>"), "eth0");
  EXPECT_EQ(device_name("mlx5_0:1/IB"), "mlx5_0:1/IB");
  // Two nodes whose sockets differ only in their addresses still agree.
  auto ranks = transport_load({"socket_fallback.log"});
  ranks.push_back(ranks[0]);
  ranks[1].rank = 1;
  ranks[1].hcas = {"eth0:10.244.2.9<0>"};
  EXPECT_EQ(render_transport_summary(ranks).size(), 1u);
}

TEST(FabricTransport, JsonForTheGatherRoundTrips) {
  const auto ranks = transport_load({"ib8_gdr_pxn.log", "roce_shm_nogdr.log"});
  for (const auto& r : ranks) {
    const RankTransport back = rank_transport_from_json(nlohmann::json::parse(to_json(r).dump()));
    EXPECT_EQ(back.rank, r.rank);
    EXPECT_EQ(back.host, r.host);
    EXPECT_EQ(back.hcas, r.hcas);
    EXPECT_EQ(back.gdr, r.gdr);
    EXPECT_EQ(back.dmabuf, r.dmabuf);
    EXPECT_EQ(back.channels, r.channels);
    EXPECT_EQ(back.graph_type, r.graph_type);
    EXPECT_EQ(back.transports, r.transports);
    EXPECT_EQ(back.peer_transport, r.peer_transport);
    // Every field, those above and pid, cuda_dev, nranks, network: one dropped on either side
    // of the gather fails here.
    EXPECT_EQ(to_json(back), to_json(r));
  }
}

// ---- rank 0's assembly (run/run_transport.hpp) ----

std::vector<std::string> messages_of(const std::vector<RankTransport>& ranks) {
  std::vector<std::string> out;
  for (auto r : ranks) {
    r.host = "gpunode/node" + std::to_string(r.rank / 2);
    out.push_back(nlohmann::json{{"status", "ok"}, {"note", "captured"}, {"transport", to_json(r)}}.dump());
  }
  return out;
}

FabricRunOptions requiring(RequiredTransport t, bool gdr = false) {
  FabricRunOptions o;
  o.required = t;
  o.require_gdr = gdr;
  return o;
}

TEST(FabricTransportRun, ReportWithoutRequirement) {
  const auto out = judge_gathered(messages_of(load_folder("emulated2x2")), FabricRunOptions{});
  ASSERT_EQ(out.lines.size(), 1u);
  EXPECT_EQ(out.lines[0], "# Transport (NCCL's INFO lines, captured): 4 ranks alike: network Socket [eth0], GDR off, "
                          "2 channels, graph NVL/PHB, peers via NET/Socket, P2P");
  EXPECT_FALSE(out.failed);
  ASSERT_TRUE(out.record);
  EXPECT_EQ(out.record->status, "reported");
  EXPECT_EQ(out.record->required, "any");
  ASSERT_EQ(out.record->ranks.size(), 4u);
  EXPECT_EQ(out.record->ranks[2].host, "gpunode/node1");
  EXPECT_EQ(out.record->ranks[2].peers.at(0), "NET/Socket");
}

TEST(FabricTransportRun, SocketRequiredPasses) {
  const auto out = judge_gathered(messages_of(load_folder("emulated2x2")), requiring(RequiredTransport::Socket));
  EXPECT_FALSE(out.failed);
  EXPECT_EQ(out.lines.back(), "# Transport: PASS --require-transport socket (every rank)");
  EXPECT_EQ(out.record->status, "pass");
}

TEST(FabricTransportRun, IbRequiredOnSocketsFailsWithTheReason) {
  const auto out = judge_gathered(messages_of(load_folder("emulated2x2")), requiring(RequiredTransport::IB));
  EXPECT_TRUE(out.failed);
  EXPECT_TRUE(mentions(out.lines, "# Transport: FAIL --require-transport ib: rank 0 (host gpunode/node0, GPU 0) used "
                                  "network Socket, not IB: NCCL fell back to sockets"));
  EXPECT_EQ(out.lines.back(), "# Transport check failed: nothing was measured (exit code 6, preflight failed)");
  EXPECT_EQ(out.record->status, "fail");
  EXPECT_EQ(out.record->problems.size(), 4u);
}

TEST(FabricTransportRun, GdrRequiredWithoutGdrFails) {
  const auto out = judge_gathered(messages_of(transport_load({"ib8_gdr_pxn.log", "roce_shm_nogdr.log"})),
                                  requiring(RequiredTransport::Any, true));
  EXPECT_TRUE(out.failed);
  ASSERT_EQ(out.record->problems.size(), 1u);
  EXPECT_EQ(out.record->problems[0], "rank 1 (host gpunode/node0, GPU 1) has GPUDirect RDMA off");
  EXPECT_TRUE(mentions(out.lines, "# Transport (NCCL's INFO lines, captured), per rank:"));
}

// ---- NCCL's GDR choice joined with preflight's readiness (tests/fixtures/sysfs/gdr_*) ----

GdrReadiness transport_readiness_of(const std::string& tree) {
  return gpudirect_readiness(gather_host_facts(SysfsRoot(std::string(COMMSWEEP_SYSFS_FIXTURES) + "/" + tree)));
}

TEST(FabricTransportGdrJoin, GdrOffWhereTheNodeIsReadyIsNamed) {
  const auto ranks = transport_load({"ib_nogdr.log"});  // "GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
  ASSERT_EQ(ranks.size(), 1u);
  const auto lines = join_gdr_readiness(ranks, {{"gpu-7", transport_readiness_of("gdr_peermem")}});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("rank 8 (host gpu-7, GPU 0): NCCL ran without GPUDirect RDMA although preflight finds it "
                           "possible (nvidia_peermem loaded)", 0), 0u) << lines[0];
  EXPECT_EQ(join_gdr_readiness(ranks, {{"gpu-7", transport_readiness_of("gdr_absent")}}).size(), 0u);  // agree
  EXPECT_TRUE(join_gdr_readiness(ranks, {{"other-host", transport_readiness_of("gdr_peermem")}}).empty());
}

TEST(FabricTransportGdrJoin, GdrOnWhereNoWayWasFoundIsNamed) {
  const auto ranks = transport_load({"roce_gdr.node-a.log", "roce_gdr.node-b.log"});  // GDRDMA, DMA-BUF
  ASSERT_EQ(ranks.size(), 2u);
  const std::map<std::string, GdrReadiness> ready{{"node-a", transport_readiness_of("gdr_dmabuf")},
                                                  {"node-b", transport_readiness_of("gdr_absent")}};
  const auto lines = join_gdr_readiness(ranks, ready);
  ASSERT_EQ(lines.size(), 1u);  // node-a agrees (dma-buf), node-b does not
  EXPECT_NE(lines[0].find("(host node-b, GPU 0): NCCL ran with GPUDirect RDMA although preflight finds no way "
                          "(neither nvidia_peermem nor dma-buf (kernel 5.4.0-150-generic < 5.12; the proprietary "
                          "kernel module 535.129.03, not the open one))"), std::string::npos) << lines[0];
}

TEST(FabricTransportGdrJoin, SocketsAndSingleNodeRanksAreNotJudged) {
  const auto sockets = load_folder("emulated2x2");
  std::map<std::string, GdrReadiness> ready;
  for (const auto& r : sockets) ready[r.host] = transport_readiness_of("gdr_peermem");
  EXPECT_TRUE(join_gdr_readiness(sockets, ready).empty());
  const auto shm = transport_load({"shm_single_node.log"});
  for (const auto& r : shm) ready[r.host] = transport_readiness_of("gdr_peermem");
  EXPECT_TRUE(join_gdr_readiness(shm, ready).empty());
}

TEST(FabricTransportGdrJoin, RankZeroPrintsTheDisagreementBesideTheReport) {
  auto messages = messages_of(transport_load({"ib8_gdr_pxn.log", "roce_shm_nogdr.log"}));
  ASSERT_EQ(messages.size(), 2u);
  const auto peermem = transport_readiness_of("gdr_peermem");
  for (auto& m : messages) {  // each rank's host (node0, node1) ready through peer memory
    auto doc = nlohmann::json::parse(m);
    doc["gdr_readiness"] = {{"path", to_string(peermem.path)}, {"reason", peermem.reason}};
    m = doc.dump();
  }
  const auto out = judge_gathered(messages, FabricRunOptions{});
  EXPECT_FALSE(out.failed);  // a note, not a verdict: --require-gdr decides the exit code
  EXPECT_TRUE(mentions(out.lines, "# Transport vs preflight: rank 1 (host gpunode/node0, GPU 1): NCCL ran without "
                                  "GPUDirect RDMA although preflight finds it possible (nvidia_peermem loaded)"));
  EXPECT_FALSE(mentions(out.lines, "Transport vs preflight: rank 3 "));  // GDR on, as readiness says
  // Without readiness in the messages (an older rank's message), no line.
  EXPECT_FALSE(mentions(judge_gathered(messages_of(transport_load({"roce_shm_nogdr.log"})), FabricRunOptions{}).lines,
                        "Transport vs preflight"));
}

TEST(FabricTransportRun, ARankWithoutLinesCannotBeVerified) {
  auto messages = messages_of(load_folder("nvlink4"));
  messages[2] = nlohmann::json{{"status", "off"}, {"note", "NCCL_DEBUG=WARN is yours"}}.dump();
  const auto reported = judge_gathered(messages, FabricRunOptions{});
  EXPECT_FALSE(reported.failed);
  EXPECT_TRUE(mentions(reported.lines, "# Transport not reported by rank(s) 2: NCCL_DEBUG=WARN is yours"));
  const auto required = judge_gathered(messages, requiring(RequiredTransport::NVLink));
  EXPECT_TRUE(required.failed);
  EXPECT_EQ(required.record->problems[0], "rank 2 cannot be verified: NCCL_DEBUG=WARN is yours");
  std::vector<std::string> none(2, nlohmann::json{{"status", "off"}, {"note", "NCCL_DEBUG=VERSION is yours"}}.dump());
  const auto unavailable = judge_gathered(none, FabricRunOptions{});
  EXPECT_EQ(unavailable.record->status, "unavailable");
  EXPECT_EQ(unavailable.record->source, "NCCL_DEBUG=VERSION is yours");
  EXPECT_EQ(unavailable.lines, std::vector<std::string>{"# Transport not reported by rank(s) 0, 1: NCCL_DEBUG=VERSION is yours"});
}

// ---- the capture (fabric/nccl_log_capture.hpp) ----

struct CleanEnv {
  CleanEnv() { clear(); }
  ~CleanEnv() { clear(); }
  static void clear() {
    for (const char* v : {"NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS"}) unsetenv(v);
  }
};

TEST(FabricTransportCapture, PrivateModeSetsTheSubsystemsAndRestoresTheUsers) {
  CleanEnv clean;
  setenv("NCCL_DEBUG_SUBSYS", "COLL", 1);
  NcclLogCapture capture;
  ASSERT_EQ(capture.mode(), NcclLogCapture::Mode::Private);
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_SUBSYS"), kCaptureSubsystems);
  const std::string folder = capture.folder();
  EXPECT_TRUE(fs::is_directory(folder));
  capture.finish();  // before the destructor: as the run does right after reading
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_SUBSYS"), "COLL");
  EXPECT_EQ(std::getenv("NCCL_DEBUG"), nullptr);
  EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr);
}

TEST(FabricTransportCapture, TheUsersOwnFileIsReadAndKept) {
  CleanEnv clean;
  const fs::path dir = fs::temp_directory_path() / ("commsweep-user-log-" + std::to_string(getpid()));
  fs::create_directories(dir);
  setenv("NCCL_DEBUG", "info", 1);
  setenv("NCCL_DEBUG_FILE", (dir.string() + "/mine.%h.%p").c_str(), 1);
  const std::string expanded = dir.string() + "/mine." + nccl_log_host_name() + "." + std::to_string(getpid());
  {
    std::ifstream in(kLogs + "/ib8_gdr_pxn.log");
    std::ofstream(expanded) << in.rdbuf();
    NcclLogCapture capture;
    EXPECT_EQ(capture.mode(), NcclLogCapture::Mode::UserFile);
    EXPECT_NE(capture.note().find("are yours: read from " + expanded), std::string::npos) << capture.note();
    const auto ranks = capture.read();
    ASSERT_EQ(ranks.size(), 1u);
    EXPECT_EQ(ranks[0].rank, 3);
  }
  EXPECT_TRUE(fs::exists(expanded)) << "the user's file is left in place";
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "info");
  fs::remove_all(dir);
}

TEST(FabricTransportCapture, OtherUserSettingsSayWhyNothingIsCaptured) {
  CleanEnv clean;
  setenv("NCCL_DEBUG", "INFO", 1);
  {
    NcclLogCapture c;
    EXPECT_FALSE(c.active());
    EXPECT_NE(c.note().find("without NCCL_DEBUG_FILE prints NCCL's lines to stdout"), std::string::npos) << c.note();
  }
  unsetenv("NCCL_DEBUG");
  setenv("NCCL_DEBUG_FILE", "/tmp/x.%p", 1);
  {
    NcclLogCapture c;
    EXPECT_FALSE(c.active());
    EXPECT_NE(c.note().find("NCCL_DEBUG_FILE is set without NCCL_DEBUG=INFO"), std::string::npos) << c.note();
  }
  unsetenv("NCCL_DEBUG_FILE");
  setenv("NCCL_DEBUG", "TRACE", 1);
  setenv("NCCL_DEBUG_FILE", "/tmp/x.%p", 1);
  setenv("NCCL_DEBUG_SUBSYS", "^INIT", 1);
  {
    NcclLogCapture c;
    EXPECT_TRUE(c.active());
    EXPECT_NE(c.note().find("lacks INIT"), std::string::npos) << c.note();
  }
}

// The real NCCL (builds with the nccl backend; no GPU needed): its first call reads the
// capture's settings and writes its INFO lines into the private folder, under the name the
// capture expects (%h and %p as nccl_log_host_name() and the pid give them).
TEST(FabricTransportCapture, RealNcclWritesIntoThePrivateFolder) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  CleanEnv clean;
  NcclLogCapture capture;
  ASSERT_EQ(capture.mode(), NcclLogCapture::Mode::Private);
  ncclUniqueId id{};
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  const std::string file = capture.folder() + "/nccl." + nccl_log_host_name() + "." + std::to_string(getpid());
  std::ifstream in(file);
  ASSERT_TRUE(in.good()) << file << " absent: NCCL did not follow NCCL_DEBUG_FILE";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find(" NCCL INFO "), std::string::npos) << text.str();
  const std::string folder = capture.folder();
  capture.finish();
  EXPECT_FALSE(fs::exists(folder));
#else
  GTEST_SKIP() << "built without the nccl backend";
#endif
}

TEST(FabricTransportCapture, DebugFileExpandsAsNcclDoes) {
  EXPECT_EQ(expand_nccl_debug_file("/tmp/n.%h.%p", "gpu-1", 42), "/tmp/n.gpu-1.42");
  EXPECT_EQ(expand_nccl_debug_file("a%%b%x%", "h", 1), "a%b%x%");
  EXPECT_EQ(nccl_log_host_name().find('.'), std::string::npos);
}

// ---- the results file ----

report::Results results_with_transport() {
  report::Results r;
  auto& p = r.provenance;
  p.commsweep_version = "0.1.0";
  p.git_hash = "0123456789ab";
  p.started_at = "2026-11-21T03:15:00Z";
  p.backend = "nccl";
  p.ranks = 4;
  p.hosts = {"gpunode/node0", "gpunode/node0", "gpunode/node1", "gpunode/node1"};
  for (int i = 0; i < 4; ++i) p.gpus.push_back({i, p.hosts[i], i, "NVIDIA H200", "00000000:0" + std::to_string(6 + i) + ":00.0"});
  p.driver_version = "580.159.04 (CUDA 13.0)";
  p.cuda_version = "13.0";
  p.nccl_version = "2.28.9";
  p.nccl_headers_version = "2.28.9";
  p.mpi_version = "Open MPI v4.1.6";
  p.environment = {{"NCCL_HOSTID", "node0"}};
  p.arguments = {"all_reduce", "--require-transport", "socket"};
  r.transport = judge_gathered(messages_of(load_folder("emulated2x2")), requiring(RequiredTransport::Socket)).record;
  return r;
}

TEST(FabricTransportResults, WrittenAndReadBack) {
  const auto original = results_with_transport();
  const std::string text = report::to_json(original).dump(2) + "\n";
  // COMMSWEEP_WRITE_GOLDEN=1 rewrites it; tests/mpi/validate_results.py validates it against
  // results/schema (ctest unit.results_schema.transport).
  const std::string golden = std::string(COMMSWEEP_GOLDEN_DIR) + "/results_transport.json";
  if (std::getenv("COMMSWEEP_WRITE_GOLDEN")) std::ofstream(golden) << text;
  std::ifstream in(golden);
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str());
  const auto back = report::results_from_json(nlohmann::json::parse(text));
  ASSERT_TRUE(back.transport);
  EXPECT_EQ(back.transport->status, "pass");
  EXPECT_EQ(back.transport->required, "socket");
  ASSERT_EQ(back.transport->ranks.size(), 4u);
  EXPECT_EQ(back.transport->ranks[1].peers, original.transport->ranks[1].peers);
  EXPECT_EQ(back.transport->ranks[1].gdr, false);
  EXPECT_EQ(back.transport->ranks[1].hcas, std::vector<std::string>{"eth0:192.0.2.2<0>"});
  // Without a record (the mpi backend) there is no "transport" key.
  report::Results plain = original;
  plain.transport.reset();
  EXPECT_FALSE(report::to_json(plain).contains("transport"));
  EXPECT_FALSE(report::results_from_json(report::to_json(plain)).transport);
}

}  // namespace
}  // namespace commsweep::fabric
