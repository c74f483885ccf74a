// src/health: readers on fixture trees in the kernel's formats (tests/fixtures/health, written
// by make_fixtures.py), the severity rules, the printers and the joined verdict; NVML through
// the recorded double. Each case checks the exact findings it must produce.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "health/counter.hpp"
#include "health/findings.hpp"
#include "health/health_json.hpp"
#include "health/join.hpp"
#include "health/pcie_reader.hpp"
#include "health/rdma_reader.hpp"
#include "health/report.hpp"
#include "health/snapshot.hpp"
#include "health_nvml_double.hpp"
#include "regress/compare.hpp"
#include "regress/render.hpp"
#include "regress_fixtures.hpp"
#include "report/result.hpp"

namespace commsweep::health {
namespace {

namespace fs = std::filesystem;

std::string health_fixture(const std::string& name) { return std::string(COMMSWEEP_HEALTH_FIXTURES) + "/" + name; }

// A snapshot of TREE taken at T seconds (the rates are per second of the interval).
Snapshot snap(const std::string& tree, double t, NvmlApi* nvml = nullptr, const std::string& label = "after") {
  Snapshot s = take_snapshot(Tree(tree), nvml, "N1", label);
  s.taken_at = t;
  return s;
}

// "SEVERITY component: counter detail", one per finding, in the order judged.
std::vector<std::string> lines(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(to_string(f.severity) + " " + f.component + ": " + describe(f));
  return out;
}

// A writable copy of a fixture tree, removed at the end of the test.
class TreeCopy {
 public:
  explicit TreeCopy(const std::string& name) {
    std::string flat = name;
    for (char& c : flat)
      if (c == '/') c = '_';
    dir_ = fs::temp_directory_path() / ("commsweep-health-" + std::to_string(getpid()) + "-" + flat);
    fs::remove_all(dir_);
    fs::copy(health_fixture(name), dir_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~TreeCopy() { fs::remove_all(dir_); }
  std::string root() const { return dir_.string(); }
  void write(const std::string& path, const std::string& text) const {
    fs::remove_all(dir_.string() + path);
    std::ofstream(dir_.string() + path) << text;
  }
  std::string port(const std::string& dev) const { return "/sys/class/infiniband/" + dev + "/ports/1"; }

 private:
  fs::path dir_;
};

TEST(HealthCounter, ParsesTheKernelsFormatAndSaysWhatIsWrong) {
  EXPECT_EQ(parse_counter("symbol_error", "412", 16).value, 412u);
  EXPECT_TRUE(parse_counter("symbol_error", "65535", 16).saturated);
  EXPECT_FALSE(parse_counter("port_xmit_data", "65535", 32).saturated);
  EXPECT_TRUE(parse_counter("local_link_integrity_errors", "15", 4).saturated);
  EXPECT_EQ(parse_counter("x", "", 64).problem, "empty (truncated?)");
  EXPECT_EQ(parse_counter("x", "abc", 64).problem, "non-numeric \"abc\"");
  EXPECT_EQ(parse_counter("x", "-1", 64).problem, "non-numeric \"-1\"");
  EXPECT_EQ(parse_counter("x", "99999999999999999999999", 64).problem,
            "out of range \"99999999999999999999999\" (over 64 bits)");
  EXPECT_EQ(parse_counter("x", "70000", 16).problem, "out of range \"70000\" (over 16 bits)");
  EXPECT_EQ(parse_counter("x", "18446744073709551615", 64).value, 18446744073709551615ull);
  EXPECT_EQ(port_counter_width("symbol_error"), 16);
  EXPECT_EQ(port_counter_width("port_xmit_data"), 32);
  EXPECT_EQ(port_counter_width("out_of_sequence"), 64);
}

TEST(HealthFixtures, HealthyEightNicIbNodeIsOk) {
  const Snapshot s = snap(health_fixture("ib_healthy"), 0);
  ASSERT_EQ(s.ports.size(), 8u);
  EXPECT_EQ(s.ports[3].component(), "mlx5_3 port 1");
  EXPECT_EQ(s.ports[3].state, "ACTIVE");
  EXPECT_EQ(s.ports[3].phys_state, "LinkUp");
  EXPECT_EQ(s.ports[3].width, 4);
  EXPECT_EQ(s.ports[3].speed_gbps, 400);
  EXPECT_EQ(s.ports[3].counters.size(), 21u);
  EXPECT_EQ(s.pcie.size(), 16u);  // 8 GPUs and 8 NICs
  ASSERT_TRUE(s.pcie[0].aer.has_value());
  EXPECT_EQ(s.pcie[0].aer->correctable.size(), 8u);
  EXPECT_TRUE(s.unread.empty());
  EXPECT_EQ(s.nvml_note, "GPUs not read (NVML not asked for)");
  // GPU 3's link idles at 2.5 GT/s (power saving): not a finding.
  EXPECT_EQ(lines(judge_state(s)), std::vector<std::string>{});
  HealthReport r = build_report({NodeHealth{"N1", std::nullopt, s}});
  r.unread.clear();
  EXPECT_EQ(render_block(r), "# Health: N1, one snapshot: GPUs not read; 8 RDMA ports active; 16 PCIe links at full width: OK\n");
}

TEST(HealthFixtures, RoceSriovHwCountersRiseWithTheirRules) {
  const Snapshot before = snap(health_fixture("roce_sriov/before"), 100, nullptr, "before");
  const Snapshot after = snap(health_fixture("roce_sriov/after"), 110);
  ASSERT_EQ(after.ports.size(), 2u);
  EXPECT_EQ(after.ports[0].link_layer, "Ethernet");
  EXPECT_EQ(after.ports[0].hw_counters.size(), 16u);  // lifespan is a setting, not a counter
  EXPECT_EQ(lines(judge_change(before, after)),
            (std::vector<std::string>{"WARN mlx5_2 port 1: out_of_sequence +5000, 500/s (limit 1/s, commsweep)",
                                      "WARN mlx5_3 port 1: local_ack_timeout_err +2, 0.2/s (any rise warns, mlx5)",
                                      "INFO mlx5_2 port 1: np_cnp_sent +5000, 500/s (information only, mlx5)",
                                      "INFO mlx5_2 port 1: rp_cnp_handled +4000, 400/s (information only, mlx5)"}));
}

TEST(HealthFixtures, FlappedPortFails) {
  const Snapshot before = snap(health_fixture("ib_flapped/before"), 100, nullptr, "before");
  const Snapshot after = snap(health_fixture("ib_flapped/after"), 110);
  const auto found = judge_change(before, after);
  EXPECT_EQ(lines(found), (std::vector<std::string>{
                              "FAIL mlx5_1 port 1: state ACTIVE -> DOWN (LinkUp -> Polling) (IBTA)",
                              "FAIL mlx5_1 port 1: link_downed +1, 0.1/s (any rise fails, IBTA, GCM)",
                              "WARN mlx5_1 port 1: link_error_recovery +3, 0.3/s (any rise warns, ibqueryerrors)",
                              "WARN mlx5_1 port 1: symbol_error +412, 41/s (limit 0.1/s, IBTA BER)"}));
  EXPECT_EQ(worst(found), Severity::Fail);
  HealthReport r = build_report({NodeHealth{"N1", before, after}});
  r.unread.clear();
  EXPECT_EQ(render_block(r),
            "# Health: N1, before/after 10.0 s: GPUs not read; 2 RDMA ports, 1 active, error counters +416; 4 PCIe "
            "links at full width, AER +0: 2 FAIL, 2 WARN on N1\n"
            "#   FAIL N1 RDMA: mlx5_1 port 1 state ACTIVE -> DOWN (LinkUp -> Polling) (IBTA), link_downed +1, 0.1/s "
            "(any rise fails, IBTA, GCM), link_error_recovery +3, 0.3/s (any rise warns, ibqueryerrors), symbol_error "
            "+412, 41/s (limit 0.1/s, IBTA BER)\n");
}

TEST(HealthFixtures, NicPcieLinkAtReducedWidthFails) {
  const Snapshot s = snap(health_fixture("nic_pcie_x8"), 0);
  EXPECT_EQ(lines(judge_state(s)),
            std::vector<std::string>{"FAIL PCIe 0000:1a:00.0 (NIC mlx5_0): width degraded: x8 of x16 (PCIe)"});
}

TEST(HealthFixtures, PortTrainedNarrowOrSlowAgainstItsSiblings) {
  TreeCopy t("ib_healthy");
  t.write(t.port("mlx5_5") + "/rate", "200 Gb/sec (2X NDR)\n");
  t.write(t.port("mlx5_6") + "/rate", "200 Gb/sec (4X HDR)\n");
  t.write("/sys/bus/pci/devices/0000:8a:00.0/current_link_speed", "16.0 GT/s PCIe\n");  // mlx5_7's
  EXPECT_EQ(lines(judge_state(snap(t.root(), 0))),
            (std::vector<std::string>{
                "FAIL mlx5_5 port 1: width degraded: 200 Gb/sec (2X NDR) where the node's other ports of its model "
                "run 4X (IBTA)",
                "WARN mlx5_6 port 1: rate slower: 200 Gb/sec (4X HDR) where the node's other ports of its model run "
                "400 Gb/sec (NHC)",
                "WARN PCIe 0000:8a:00.0 (NIC mlx5_7): speed slower: 16.0 GT/s PCIe of 32.0 GT/s PCIe (PCIe)"}));
}

TEST(HealthFixtures, SaturatedCounterIsNeverADelta) {
  const Snapshot s = snap(health_fixture("saturated"), 0);
  const std::string said =
      "WARN mlx5_1 port 1: symbol_error saturated at 65535 (16-bit counter stopped counting: clear the port's "
      "counters to see new errors) (IBTA)";
  EXPECT_EQ(lines(judge_state(s)), std::vector<std::string>{said});
  // From below the ceiling to the ceiling: the rise is unknown, so no "+N" is said.
  const Snapshot before = snap(health_fixture("ib_flapped/before"), 0, nullptr, "before");
  EXPECT_EQ(lines(judge_change(before, snap(health_fixture("saturated"), 10))), std::vector<std::string>{said});
}

TEST(HealthFixtures, AStateAlreadySoBeforeTheRunIsPersistentNotNew) {
  const Snapshot before = snap(health_fixture("saturated"), 0, nullptr, "before");
  const auto found = judge_change(before, snap(health_fixture("saturated"), 10));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].persistent);
  EXPECT_EQ(lines(found),
            std::vector<std::string>{"WARN mlx5_1 port 1: symbol_error saturated at 65535 (16-bit counter stopped "
                                     "counting: clear the port's counters to see new errors) (IBTA) (so before the "
                                     "run too)"});
}

// compare: a new WARN or FAIL of the run's "health" is a regression; a persistent one is not.
TEST(HealthCompare, NewFindingsAreARegression) {
  const Snapshot before = snap(health_fixture("ib_flapped/before"), 100, nullptr, "before");
  report::Results run;
  run.health = report_json(build_report({NodeHealth{"N1", before, snap(health_fixture("ib_flapped/after"), 110)}}));
  const regress::Comparison c = regress::compare(run, regress::Baseline{});
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  ASSERT_EQ(c.health.size(), 4u);
  EXPECT_EQ(c.health[1].counter, "link_downed");
  EXPECT_EQ(c.health[1].delta, 1);
  report::Results old;
  old.health = report_json(build_report({NodeHealth{"N1", snap(health_fixture("saturated"), 0, nullptr, "before"),
                                                    snap(health_fixture("saturated"), 10)}}));
  EXPECT_EQ(regress::compare(old, regress::Baseline{}).exit_code, exit_code::kOk);
  report::Results broken;
  broken.health = nlohmann::json{{"findings", {{{"severity", "FAIL"}}}}};
  EXPECT_THROW(regress::compare(broken, regress::Baseline{}), std::runtime_error);
}

// A sweep slower than its baseline, with counters that moved on its nodes: compare names them
// with the failed size, prints them after the verdicts and exports them.
TEST(HealthCompare, SlowSweepIsJoinedWithTheMovedCounters) {
  const auto baseline = regress::testing::baseline_of({regress::testing::run_at(100), regress::testing::run_at(100)});
  report::Results run = regress::testing::run_at(100);
  run.rows[3] = regress::testing::all_reduce_row(8 << 20, 40);
  run.health = report_json(build_report({NodeHealth{"N1", snap(health_fixture("ib_flapped/before"), 100, nullptr, "before"),
                                                    snap(health_fixture("ib_flapped/after"), 110)}}));
  const regress::Comparison c = regress::compare(run, baseline);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  ASSERT_EQ(c.health_evidence.size(), 4u);
  EXPECT_EQ(c.health_evidence[1],
            "N1 mlx5_1 port 1: link_downed +1, 0.1/s (rule link_downed: any rise fails, IBTA, GCM) during the run whose "
            "all_reduce float sum 8M in_place failed against the baseline (-60%)");
  const std::string table = regress::render_table(c);
  EXPECT_NE(table.find("health FAIL: N1 mlx5_1 port 1: link_downed +1, 0.1/s (rule link_downed: any rise fails, IBTA, "
                       "GCM)\n"),
            std::string::npos)
      << table;
  const std::string prom = regress::render_prometheus(c);
  EXPECT_NE(prom.find("counter=\"symbol_error\",rule=\"symbol_error\",limit=\"limit 0.1/s, IBTA BER\"} 412\n"),
            std::string::npos)
      << prom;
  const std::string markdown = regress::render_markdown(c);
  EXPECT_NE(markdown.find("- health WARN: `N1` mlx5_1 port 1: symbol_error +412, 41/s (rule symbol_error: limit 0.1/s, "
                          "IBTA BER)\n"),
            std::string::npos)
      << markdown;
  const nlohmann::json j = regress::comparison_json(c);
  EXPECT_EQ(j.at("health").at(3).at("rule"), "symbol_error");
  EXPECT_EQ(j.at("health").at(3).at("limit"), "limit 0.1/s, IBTA BER");
  EXPECT_NEAR(j.at("health").at(3).at("rate_per_s").get<double>(), 41.2, 1e-9);
}

TEST(HealthFixtures, MissingCountersFolderIsSaidAndTheRestRead) {
  const Snapshot s = snap(health_fixture("missing_counters"), 0);
  ASSERT_EQ(s.ports.size(), 2u);
  EXPECT_EQ(s.ports[0].counters.size(), 21u);
  EXPECT_TRUE(s.ports[1].counters.empty());
  EXPECT_EQ(s.unread, std::vector<std::string>{"mlx5_1 port 1 counters/: missing"});
  EXPECT_EQ(lines(judge_state(s)), std::vector<std::string>{});
}

TEST(HealthBadInput, UnreadableTruncatedNonNumericAndHugeCountersAreLinesNotCrashes) {
  TreeCopy t("ib_flapped/before");
  const std::string c = t.port("mlx5_1") + "/counters/";
  t.write(c + "symbol_error", "");                        // truncated
  t.write(c + "link_downed", "abc\n");                    // non-numeric
  t.write(c + "port_rcv_errors", "99999999999999999999999\n");  // beyond 64 bits
  t.write(c + "VL15_dropped", std::string(1 << 20, '7'));      // a megabyte: no sysfs attribute
  fs::create_directory(t.root() + c + "port_xmit_discards.tmp");
  t.write(c + "port_xmit_discards", "");
  fs::remove(t.root() + c + "port_xmit_discards");
  fs::rename(t.root() + c + "port_xmit_discards.tmp", t.root() + c + "port_xmit_discards");  // unreadable
  const Snapshot s = snap(t.root(), 0);
  EXPECT_EQ(s.unread, (std::vector<std::string>{
                          "mlx5_1 port 1 counters/VL15_dropped: too large (over 4096 bytes: not a sysfs attribute)",
                          "mlx5_1 port 1 counters/link_downed: non-numeric \"abc\"",
                          "mlx5_1 port 1 counters/port_rcv_errors: out of range \"99999999999999999999999\" (over 64 bits)",
                          "mlx5_1 port 1 counters/port_xmit_discards: a folder, not a file",
                          "mlx5_1 port 1 counters/symbol_error: empty (truncated?)"}));
  ASSERT_EQ(s.ports.size(), 2u);
  EXPECT_EQ(s.ports[1].counters.size(), 21u);  // the rest intact
  // A counter unread in either snapshot gives no delta, and the other counters still judge.
  TreeCopy after("ib_flapped/before");
  after.write(c + "link_error_recovery", "2\n");
  const auto found = judge_change(s, snap(after.root(), 10));
  EXPECT_EQ(lines(found),
            std::vector<std::string>{"WARN mlx5_1 port 1: link_error_recovery +2, 0.2/s (any rise warns, ibqueryerrors)"});
}

TEST(HealthBadInput, DeviceVanishedBetweenSnapshotsFails) {
  TreeCopy t("ib_flapped/before");
  const Snapshot before = snap(t.root(), 0, nullptr, "before");
  fs::remove_all(t.root() + "/sys/class/infiniband/mlx5_1");
  fs::remove_all(t.root() + "/sys/bus/pci/devices/0000:2a:00.0");
  EXPECT_EQ(lines(judge_change(before, snap(t.root(), 10))),
            (std::vector<std::string>{
                "FAIL mlx5_1 port 1: present gone since the first snapshot (device removed or driver reset) (commsweep)",
                "FAIL PCIe 0000:2a:00.0 (NIC mlx5_1): present gone since the first snapshot (commsweep)"}));
}

TEST(HealthBadInput, AerFatalRiseFailsAndBrokenAerIsSaid) {
  TreeCopy t("ib_flapped/before");
  const std::string dev = "/sys/bus/pci/devices/0000:1a:00.0/";
  const Snapshot before = snap(t.root(), 0, nullptr, "before");
  std::string fatal;
  for (const char* n : {"Undefined 0", "DLP 0", "SDES 0", "TLP 0", "FCP 0", "CmpltTO 1", "CmpltAbrt 0", "UnxCmplt 0",
                        "RxOF 0", "MalfTLP 0", "ECRC 0", "UnsupReq 0", "ACSViol 0", "UncorrIntErr 0", "BlockedTLP 0",
                        "AtomicOpBlocked 0", "TLPBlockedErr 0", "PoisonTLPBlocked 0", "TOTAL_ERR_FATAL 1"})
    fatal += std::string(n) + "\n";
  t.write(dev + "aer_dev_fatal", fatal);
  t.write("/sys/bus/pci/devices/0000:2a:00.0/aer_dev_correctable", "RxErr 0\nBadTLP 0\n");  // truncated
  const Snapshot after = snap(t.root(), 10);
  EXPECT_EQ(after.unread, std::vector<std::string>{
                              "PCIe 0000:2a:00.0 (NIC mlx5_1) aer_dev_correctable: no TOTAL_ERR_ line (truncated?)"});
  EXPECT_EQ(lines(judge_change(before, after)),
            std::vector<std::string>{"FAIL PCIe 0000:1a:00.0 (NIC mlx5_0): aer_fatal +1, 0.1/s (any rise fails, PCIe)"});
}

TEST(HealthNvml, XidsNvlinkCountersAndThrottleReasonsFromTheRecordedDouble) {
  testing::RecordedNvml nvml(4);
  nvml.register_xid_events();
  const Snapshot before = snap(health_fixture("ib_flapped/before"), 100, &nvml, "before");
  ASSERT_EQ(before.gpus.size(), 4u);
  EXPECT_EQ(before.gpus[0].nvlinks.size(), 18u);
  EXPECT_EQ(before.gpus[0].unread, std::vector<std::string>{});  // retired pages: Not Supported, quietly
  EXPECT_EQ(lines(judge_state(before)), std::vector<std::string>{});
  nvml.xids = {{2, 79}};  // before the run: in the before snapshot
  const Snapshot early = snap(health_fixture("ib_flapped/before"), 100, &nvml, "before");
  EXPECT_EQ(lines(judge_state(early)), std::vector<std::string>{"FAIL GPU 2: xid XID 79 (DCGM)"});
  nvml.xids = {{2, 79}, {1, 13}};  // during it: new, even where the same XID came before
  nvml.gpus[1].links[5].active = false;
  nvml.gpus[0].links[3].crc_flit = 100;
  nvml.gpus[0].links[3].recovery = 1;
  nvml.gpus[3].clock_event_reasons = 0x40 | 0x1;
  nvml.gpus[2].remap_pending = true;
  nvml.gpus[3].ecc_uncorrected = 2;
  const Snapshot after = snap(health_fixture("ib_flapped/before"), 110, &nvml);
  for (const auto& f : judge_change(early, after)) EXPECT_FALSE(f.persistent) << describe(f);
  EXPECT_EQ(lines(judge_change(before, after)),
            (std::vector<std::string>{"FAIL GPU 0 NVLink 3: nvlink_recovery +1, 0.1/s (any rise fails, DCGM)",
                                      "FAIL GPU 1 NVLink 5: state went down during the run (DCGM)",
                                      "FAIL GPU 3: ecc_uncorrected +2, 0.2/s (any rise fails, DCGM)",
                                      "FAIL GPU 2: xid XID 79 (DCGM)",
                                      "WARN GPU 2: remapped_rows remap pending: reset the GPU (DCGM)",
                                      "WARN GPU 3: clock_event_reasons HW thermal slowdown (DCGM)",
                                      "WARN GPU 1: xid XID 13 (DCGM)",
                                      // 10 CRC errors a second: below DCGM's 100, information.
                                      "INFO GPU 0 NVLink 3: nvlink_crc_flit +100, 10/s (limit 100/s, DCGM)"}));
}

TEST(HealthNvml, NoDriverIsANoteNotAFailure) {
  testing::RecordedNvml nvml;
  nvml.why_unavailable = "NVML not loaded (no GPU driver here?): libnvidia-ml.so.1: cannot open shared object file";
  const Snapshot s = snap(health_fixture("ib_flapped/before"), 0, &nvml);
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.nvml_note, nvml.why_unavailable);
  const HealthReport r = build_report({NodeHealth{"N1", std::nullopt, s}});
  EXPECT_EQ(r.unread, std::vector<std::string>{"N1: " + nvml.why_unavailable});
  EXPECT_NE(render_block(r).find("#   not read on N1: NVML not loaded"), std::string::npos);
  // The same reason on many nodes is one line naming a few of them.
  HealthReport many;
  for (int i = 0; i < 6; ++i) many.unread.push_back("n" + std::to_string(i) + ": " + nvml.why_unavailable);
  many.unread.push_back("n2: mlx5_1 port 1 counters/: missing");
  EXPECT_EQ(render_block(many),
            "# Health: 0 nodes, one snapshot: GPUs not read; 0 RDMA ports; 0 PCIe links: nothing could be read\n"
            "#   not read on n0, n1, n2, n3 and 2 more nodes: " + nvml.why_unavailable + "\n"
            "#   not read on n2: mlx5_1 port 1 counters/: missing\n");
}

// A slow pair's nodes: the components that rose past their limits there; else that nothing did
// where something was read, and that nothing could be read where nothing was (no false "OK").
TEST(HealthJoin, NamesTheComponentsThatMovedOnTheSlowPairsNodes) {
  const Snapshot before = snap(health_fixture("ib_flapped/before"), 100, nullptr, "before");
  const Snapshot after = snap(health_fixture("ib_flapped/after"), 110);
  const auto found = judge_change(before, after);
  Snapshot empty = snap(health_fixture("ib_flapped/absent"), 110);  // a pod that sees no /sys/class/infiniband
  const std::vector<NodeHealth> nodes = {NodeHealth{"N1", before, after}, NodeHealth{"N3", before, before},
                                         NodeHealth{"N5", std::nullopt, empty}};
  EXPECT_EQ(join_evidence(found,
                          {{{"N1", "N2"}, "pairs round 2 (N1-N2 slow 0.06 GB/s)"},
                           {{"N3", "N4"}, "pairs round 3 (N3-N4 slow 1.20 GB/s)"},
                           {{"N5"}, "pairs round 4 (N5-N6 slow 1.00 GB/s)"}},
                          nodes),
            (std::vector<std::string>{
                "N1 mlx5_1 port 1: state ACTIVE -> DOWN (LinkUp -> Polling) (IBTA), link_downed +1, 0.1/s (any rise "
                "fails, IBTA, GCM), link_error_recovery +3, 0.3/s (any rise warns, ibqueryerrors), symbol_error +412, "
                "41/s (limit 0.1/s, IBTA BER) during pairs round 2 (N1-N2 slow 0.06 GB/s)",
                "pairs round 3 (N3-N4 slow 1.20 GB/s): no hardware counter rose past its limit on N3; nothing could be "
                "read on N4 (0 RDMA ports, 0 PCIe links, 0 GPUs) (look beyond the nodes: switch ports, cables' far "
                "ends, congestion)",
                "pairs round 4 (N5-N6 slow 1.00 GB/s): nothing could be read on N5 (0 RDMA ports, 0 PCIe links, 0 GPUs) "
                "(look beyond the nodes: switch ports, cables' far ends, congestion)"}));
}

TEST(HealthJson, SnapshotsRoundTripAndFindingsExportToPrometheus) {
  testing::RecordedNvml nvml(2);
  const Snapshot s = snap(health_fixture("roce_sriov/after"), 5, &nvml);
  EXPECT_EQ(to_json(snapshot_from_json(to_json(s))), to_json(s));
  EXPECT_THROW(snapshot_from_json(nlohmann::json{{"host", "x"}}), std::runtime_error);
  const HealthReport r = build_report({NodeHealth{"N1", snap(health_fixture("roce_sriov/before"), 0, &nvml, "before"), s}});
  const std::string prom = render_prometheus(r);
  EXPECT_NE(prom.find("commsweep_health_findings{severity=\"WARN\"} 2\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("commsweep_health_counter_delta{host=\"N1\",component=\"mlx5_2 port 1\","
                      "counter=\"out_of_sequence\",severity=\"WARN\",rule=\"out_of_sequence\"} 5000\n"),
            std::string::npos)
      << prom;
  const HealthReport back = report_from_json(report_json(r));
  EXPECT_EQ(lines(back.findings), lines(r.findings));
}

TEST(HealthJson, TheEvidencesHintTravelsWithIt) {
  // An nvlink run's slow pair points inside the node; a re-judge of its file must say the same.
  HealthReport r = build_report({NodeHealth{"N1", std::nullopt, snap(health_fixture("ib_flapped/before"), 0)}});
  TrafficEvidence nvlink{{"N1"}, "nvlink N1 GPU 1 -> GPU 2 (0.25 x the node median)"};
  nvlink.look_next = "look inside the node: the GPUs' baseboard and NVSwitch trays";
  r.evidence = {nvlink};
  const HealthReport back = report_from_json(report_json(r));
  ASSERT_EQ(back.evidence.size(), 1u);
  EXPECT_EQ(back.evidence[0].look_next, nvlink.look_next);
  // Files written before it was kept: beyond the nodes, as then.
  nlohmann::json old = report_json(r);
  old["evidence"][0].erase("look_next");
  EXPECT_EQ(report_from_json(old).evidence[0].look_next, TrafficEvidence{}.look_next);
}

}  // namespace
}  // namespace commsweep::health
