// The health rule table (src/health/rules.cpp), the thresholds file that tunes it
// (src/health/thresholds.cpp), the shipped results/health-thresholds.yaml kept equal to the
// table, ports judged like for like on a tree of three NIC models, and the block a healthy
// NVLink node prints.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text_file.hpp"
#include "health/findings.hpp"
#include "health/health_json.hpp"
#include "health/report.hpp"
#include "health/rules.hpp"
#include "health/snapshot.hpp"
#include "health/thresholds.hpp"
#include "health_nvml_double.hpp"
#include "suite/document.hpp"
#include "usage_error.hpp"

namespace commsweep::health {
namespace {

using commsweep::testing::throws_usage;

std::string rules_fixture(const std::string& name) { return std::string(COMMSWEEP_HEALTH_FIXTURES) + "/" + name; }
std::string shipped_thresholds() { return std::string(COMMSWEEP_SOURCE_DIR) + "/results/health-thresholds.yaml"; }

std::string with_schema(const std::string& rules) {
  return "schema: commsweep.health-thresholds/1\nrules:\n" + rules;
}

TEST(HealthRules, EveryRowHasASourceAndALimitThatFitsItsSeverity) {
  for (const Rule& r : default_rules()) {
    EXPECT_FALSE(r.source.empty()) << r.name;
    EXPECT_GE(r.limit, 0) << r.name;
    if (r.kind == RuleKind::State || r.severity != Severity::Warn) {
      EXPECT_EQ(r.limit, 0) << r.name;
    }
  }
  const RuleBook book;
  EXPECT_EQ(book.at("nvlink_crc_data").said(), "limit 100/s, DCGM");
  EXPECT_EQ(book.at("nvlink_replay").said(), "any rise fails, DCGM");
  EXPECT_EQ(book.at("pcie_replay").said(), "limit 8/min, DCGM 3.3");
  EXPECT_EQ(book.at("link_error_recovery").said(), "any rise warns, ibqueryerrors");
  EXPECT_EQ(book.at("port_width").said(), "IBTA");
  EXPECT_THROW(book.at("no_such_rule"), std::out_of_range);
  // NVLink CRC below 100/s per link is information; above it a warning.
  EXPECT_EQ(book.at("nvlink_crc_data").judge_rise(179, 7.6), Severity::Info);  // 24/s
  EXPECT_EQ(book.at("nvlink_crc_data").judge_rise(3800, 7.6), Severity::Warn);  // 500/s
  EXPECT_EQ(book.at("nvlink_replay").judge_rise(1, 7.6), Severity::Fail);
  EXPECT_EQ(book.at("pcie_replay").judge_rise(8, 60), Severity::Info);  // 8 a minute: at the limit
  EXPECT_EQ(book.at("pcie_replay").judge_rise(9, 60), Severity::Warn);
  EXPECT_TRUE(critical_xid(79));
  EXPECT_FALSE(critical_xid(94));  // a contained ECC error: DCGM warns
  EXPECT_EQ(rate_text(512.3), "512/s");
  EXPECT_EQ(rate_text(4.21), "4.2/s");
  EXPECT_EQ(rate_text(0.3947), "0.39/s");
  EXPECT_EQ(rate_text(16.0 / 60, true), "16/min");
}

// results/health-thresholds.yaml is the table: every row, every value, every source named.
TEST(HealthRules, TheShippedThresholdsFileIsTheBuiltInTable) {
  const std::string path = shipped_thresholds();
  const std::string text = read_bounded_file(path);
  const RuleBook read = read_thresholds_file(path);
  const suite::Document doc = suite::parse_document(path, text);
  ASSERT_EQ(read.rows().size(), default_rules().size());
  for (std::size_t i = 0; i < read.rows().size(); ++i) {
    const Rule& want = default_rules()[i];
    const Rule& got = read.rows()[i];
    EXPECT_TRUE(doc.value.at("rules").contains(want.name)) << want.name << " is not in " << path;
    EXPECT_EQ(got.severity, want.severity) << want.name;
    EXPECT_NEAR(got.limit, want.limit, 1e-12) << want.name;
    EXPECT_EQ(got.per_minute, want.per_minute) << want.name;
    // The file's comments name where each limit comes from.
    for (const char* word : {"DCGM", "DCGM 3.3", "IBTA", "ibqueryerrors", "GCM", "NHC", "PCIe", "mlx5", "commsweep"})
      if (want.source.find(word) != std::string::npos) {
        EXPECT_NE(text.find(word), std::string::npos) << word;
      }
  }
  EXPECT_EQ(doc.value.at("rules").size(), default_rules().size()) << "a rule in the file that the table lacks";
}

// docs/health-rules.md's table has a row per rule with its verdict as the code judges it.
TEST(HealthRules, TheDocsTableIsTheBuiltInTable) {
  const std::string page = read_bounded_file(std::string(COMMSWEEP_SOURCE_DIR) + "/docs/health-rules.md");
  for (const Rule& r : default_rules()) {
    std::string verdict = to_string(r.severity);
    if (r.kind == RuleKind::Rise) {
      verdict = r.severity == Severity::Fail   ? "FAIL on any rise"
                : r.severity == Severity::Info ? "INFO only"
                : r.limit == 0                 ? "WARN on any rise"
                                               : "WARN above " + rate_text(r.limit, r.per_minute) + " (INFO below)";
    }
    const std::string row = "| `" + r.name + "` | " + class_name(r.cls) +
                            (r.kind == RuleKind::Rise ? ", rises " + unit_of(r.cls) : std::string(" (state)")) + " | " +
                            verdict + " | ";
    const auto at = page.find(row);
    ASSERT_NE(at, std::string::npos) << "docs/health-rules.md has no row " << row;
    const std::string line = page.substr(at, page.find('\n', at) - at);
    EXPECT_NE(line.find("| " + r.source + " |"), std::string::npos) << line;
  }
}

// The ConfigMap example of the Volcano Job and the MPIJob is a file commsweep takes.
TEST(HealthRules, TheVolcanoConfigMapExampleIsAThresholdsFile) {
  const std::string path = std::string(COMMSWEEP_SOURCE_DIR) + "/volcano/components/health-thresholds/thresholds.yaml";
  const RuleBook book = read_thresholds_file(path);
  EXPECT_EQ(book.at("out_of_sequence").severity, Severity::Info);
  EXPECT_EQ(book.at("nvlink_crc_data").limit, 100);
}

TEST(HealthThresholds, ChangedLimitsJudgeAndSayWhereTheyWereSet) {
  const RuleBook book = parse_thresholds("t.yaml", with_schema("  nvlink_crc_data:\n    limit_per_second: 10\n"
                                                               "  pcie_replay:\n    severity: fail\n"));
  EXPECT_EQ(book.file(), "t.yaml");
  EXPECT_EQ(book.at("nvlink_crc_data").said(), "limit 10/s, set in t.yaml:3");
  EXPECT_EQ(book.at("nvlink_crc_data").judge_rise(179, 7.6), Severity::Warn);
  EXPECT_EQ(book.at("pcie_replay").said(), "any rise fails, set in t.yaml:5");
  EXPECT_EQ(book.at("nvlink_crc_flit").said(), "limit 100/s, DCGM");  // untouched
  const RuleBook minute = parse_thresholds("t.yaml", with_schema("  aer_correctable:\n    limit_per_minute: 30\n"));
  EXPECT_NEAR(minute.at("aer_correctable").limit, 0.5, 1e-12);
  EXPECT_EQ(minute.at("aer_correctable").limit_text(), "limit 30/min");
  // A schema line alone: the built-in table, from that file.
  EXPECT_EQ(parse_thresholds("t.json", R"({"schema": "commsweep.health-thresholds/1"})").rows().size(),
            default_rules().size());
}

TEST(HealthThresholds, ABadFileIsOneUsageErrorNamingFileLineAndKey) {
  auto parse = [](const std::string& text) { return [text] { (void)parse_thresholds("t.yaml", text); }; };
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_dat:\n    limit_per_second: 10\n")),
                           {"--health-thresholds t.yaml:3: unknown rule \"nvlink_crc_dat\" (did you mean 'nvlink_crc_data'?)"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  no_such_counter_at_all:\n    severity: warn\n")),
                           {"t.yaml:3: unknown rule \"no_such_counter_at_all\" (the rules: results/health-thresholds.yaml"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data:\n    limit: 10\n")),
                           {"t.yaml:4: rule \"nvlink_crc_data\": key \"limit\": unknown key (the keys of this kind: "
                            "severity limit_per_second limit_per_minute)"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data:\n    limit_per_second: -5\n")),
                           {"t.yaml:4: rule \"nvlink_crc_data\": key \"limit_per_second\": -5 is negative"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data:\n    limit_per_second: fast\n")),
                           {"t.yaml:4: rule \"nvlink_crc_data\": key \"limit_per_second\": 'fast' is not a number"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data:\n    limit_per_second: 100/s\n")), {"'100/s' is not a number"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data:\n    severity: fatal\n")),
                           {"t.yaml:4: rule \"nvlink_crc_data\": key \"severity\": unknown severity 'fatal' (fail warn info)"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  link_downed:\n    limit_per_second: 1\n")),
                           {"t.yaml:4: rule \"link_downed\": key \"limit_per_second\": a limit is for severity warn, "
                            "and this rule's is fail (add severity: warn)"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  symbol_error:\n    limit_per_second: 1\n    limit_per_minute: 1\n")),
                           {"t.yaml:5: rule \"symbol_error\": key \"limit_per_minute\": give limit_per_second or "
                            "limit_per_minute, not both"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_down:\n    limit_per_second: 1\n")),
                           {"rule \"nvlink_down\": key \"limit_per_second\": unknown key (the keys of this kind: severity)"}));
  EXPECT_TRUE(throws_usage(parse(with_schema("  nvlink_crc_data: 100\n")),
                           {"t.yaml:3: rule \"nvlink_crc_data\": a mapping of severity and limit_per_second"}));
  EXPECT_TRUE(throws_usage(parse("schema: commsweep.health-thresholds/2\n"),
                           {"t.yaml:1: key \"schema\": \"commsweep.health-thresholds/2\" is not commsweep.health-thresholds/1"}));
  EXPECT_TRUE(throws_usage(parse("rules:\n  symbol_error:\n    severity: info\n"),
                           {"t.yaml:1: no \"schema: commsweep.health-thresholds/1\" line"}));
  EXPECT_TRUE(throws_usage(parse("schema: commsweep.health-thresholds/1\nrulez:\n  symbol_error: 1\n"),
                           {"t.yaml:2: unknown key \"rulez\" (a thresholds file's keys: schema rules)"}));
  EXPECT_TRUE(throws_usage(parse("- 1\n- 2\n"), {"t.yaml:1: a thresholds file is a mapping"}));
  EXPECT_TRUE(throws_usage(parse("schema: commsweep.health-thresholds/1\nrules:\n\tsymbol_error: 1\n"), {"t.yaml:3: "}));
  EXPECT_TRUE(throws_usage([] { (void)read_thresholds_file("/no/such/thresholds.yaml"); },
                           {"--health-thresholds /no/such/thresholds.yaml: cannot read"}));
  // Given by COMMSWEEP_HEALTH_THRESHOLDS (the Volcano Job's ConfigMap): named so.
  EXPECT_TRUE(throws_usage([] { (void)read_thresholds_file("/no/such/thresholds.yaml", "COMMSWEEP_HEALTH_THRESHOLDS="); },
                           {"COMMSWEEP_HEALTH_THRESHOLDS=/no/such/thresholds.yaml: cannot read"}));
  EXPECT_TRUE(throws_usage(
      [] { (void)parse_thresholds("/etc/t.yaml", with_schema("  symbol_eror:\n    severity: info\n"), "COMMSWEEP_HEALTH_THRESHOLDS="); },
      {"COMMSWEEP_HEALTH_THRESHOLDS=/etc/t.yaml:3: unknown rule \"symbol_eror\" (did you mean 'symbol_error'?)"}));
}

// A node with three NIC models (mlx4 at 4X QDR, mlx5 at 1X EDR, hfi1 at 4X EDR), each port
// judged against its own model's: healthy. The traffic counters read at the kernel's width.
TEST(HealthMixedNics, PortsAreComparedWithTheirOwnModelAndTrafficIsNeverUnread) {
  const Snapshot s = take_snapshot(Tree(rules_fixture("mixed_nics")), nullptr, "N1", "now");
  ASSERT_EQ(s.ports.size(), 4u);
  EXPECT_EQ(s.unread, std::vector<std::string>{});
  auto counter = [&](const std::string& device, int port, const std::string& name) {
    for (const auto& p : s.ports)
      if (p.device == device && p.port == port)
        for (const auto& c : p.counters)
          if (c.name == name) return c;
    return Counter{};
  };
  EXPECT_EQ(counter("mlx5_0", 1, "port_xmit_data").value, 26509113295u);
  EXPECT_EQ(counter("mlx5_0", 1, "port_xmit_data").width_bits, 64);      // PortCountersExtended
  EXPECT_EQ(counter("hfi1_0", 1, "port_xmit_data").width_bits, 64);      // extended, no unicast (noietf)
  EXPECT_EQ(counter("mlx4_0", 2, "port_xmit_data").width_bits, 32);      // PortCounters only
  EXPECT_EQ(counter("mlx4_0", 2, "symbol_error").width_bits, 16);
  // Ports in device order: hfi1_0, mlx4_0 (2), mlx5_0.
  EXPECT_EQ(s.ports[0].nic_model, "Intel Omni-Path Host Fabric Interface Adapter 100 Series");  // board_id
  EXPECT_EQ(s.ports[1].nic_model, "MT26428");                                                   // hca_type
  EXPECT_EQ(s.ports[3].nic_model, "MT4119");
  const auto found = judge_state(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Info);
  EXPECT_EQ(found[0].component + ": " + describe(found[0]),
            "mlx5_0 port 1: rate 25 Gb/sec (1X EDR): no other port of its model (MT4119) to compare with (other NIC "
            "models here run up to 4X, 100 Gb/sec) (commsweep)");
  // The same model at two widths is a degraded port.
  Snapshot narrow = s;
  narrow.ports[2].rate = "20 Gb/sec (2X QDR)";
  narrow.ports[2].width = 2;
  narrow.ports[2].speed_gbps = 20;
  const auto degraded = judge_state(narrow);
  ASSERT_FALSE(degraded.empty());
  EXPECT_EQ(degraded[0].severity, Severity::Fail);
  EXPECT_EQ(degraded[0].component + ": " + describe(degraded[0]),
            "mlx4_0 port 2: width degraded: 20 Gb/sec (2X QDR) where the node's other ports of its model (MT26428) "
            "run 4X (IBTA)");
}

// 4 GPUs x 18 NVLinks with CRC errors at 4 to 24 a second on every link, replay and recovery 0:
// the block is one line, the INFOs only in verbose.
TEST(HealthBlock, AHealthyNvlinkNodeIsOneLine) {
  testing::RecordedNvml nvml(4);
  Snapshot before = take_snapshot(Tree(rules_fixture("mixed_nics") + "/absent"), &nvml, "vm", "before");
  for (auto& g : nvml.gpus)
    for (std::size_t l = 0; l < g.links.size(); ++l) g.links[l].crc_data = 32 + 8 * l;  // +32 .. +168 over 7.6 s
  Snapshot after = take_snapshot(Tree(rules_fixture("mixed_nics") + "/absent"), &nvml, "vm", "after");
  before.taken_at = 100;
  after.taken_at = 107.6;
  HealthReport r = build_report({NodeHealth{"vm", before, after}});
  EXPECT_EQ(worst(r.findings), Severity::Info);
  EXPECT_EQ(r.findings.size(), 72u);
  r.unread.clear();
  EXPECT_EQ(render_block(r),
            "# Health: vm, before/after 7.6 s: 4 GPUs, 72/72 NVLinks active (18 of 18 links at NVLink 4.0, 25 GB/s "
            "each), CRC 4.2-22/s per link (limit 100/s), "
            "replay 0, recovery 0; 0 RDMA ports; 0 PCIe links: OK\n");
  const std::string verbose = render_block(r, true);
  EXPECT_NE(verbose.find("#   INFO vm NVLink GPU 0 NVLink 17: nvlink_crc_data +168, 22/s (limit 100/s, DCGM)\n"),
            std::string::npos) << verbose;
}

// Findings stay one line per node and class however many links; many nodes stay bounded.
TEST(HealthBlock, FindingsAreGroupedPerNodeAndClassAndBounded) {
  testing::RecordedNvml nvml(8);
  Snapshot before = take_snapshot(Tree(rules_fixture("mixed_nics") + "/absent"), &nvml, "n0", "before");
  nvml.gpus[2].links[5].crc_data = 3891;  // 512/s
  nvml.gpus[2].links[6].replay = 3;
  nvml.gpus[7].links[0].crc_flit = 1000;
  Snapshot after = take_snapshot(Tree(rules_fixture("mixed_nics") + "/absent"), &nvml, "n0", "after");
  before.taken_at = 0;
  after.taken_at = 7.6;
  std::vector<NodeHealth> nodes;
  for (int n = 0; n < 20; ++n) {
    NodeHealth node{"n" + std::to_string(n), before, after};
    node.before->host = node.after.host = node.host;
    nodes.push_back(node);
  }
  HealthReport r = build_report({nodes[0]});
  r.unread.clear();
  const std::string block = render_block(r);
  EXPECT_EQ(block,
            "# Health: n0, before/after 7.6 s: 8 GPUs, 144/144 NVLinks active (18 of 18 links at NVLink 4.0, 25 GB/s "
            "each), CRC 0-512/s per link (limit 100/s), "
            "replay 3, recovery 0; 0 RDMA ports; 0 PCIe links: 1 FAIL, 2 WARN on n0\n"
            "#   FAIL n0 NVLink: GPU 2 link 6 nvlink_replay +3, 0.39/s (any rise fails, DCGM); GPU 2 link 5 "
            "nvlink_crc_data +3891, 512/s (limit 100/s, DCGM); GPU 7 link 0 nvlink_crc_flit +1000, 132/s (limit "
            "100/s, DCGM)\n");
  HealthReport many = build_report(nodes);
  many.unread.clear();
  const std::string text = render_block(many);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 18) << text;  // the summary, 16 lines, "and 4 more"
  EXPECT_NE(text.find(": 20 FAIL, 40 WARN on n0, n1, n2, n3 and 16 more nodes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#   and 4 more lines of findings (in the JSON)\n"), std::string::npos) << text;}

}  // namespace
}  // namespace commsweep::health
