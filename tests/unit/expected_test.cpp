// Expected figures (src/regress/expected*.cpp, issue 45): the shipped results/expected/*.yaml
// (each entry sourced; own runs named in docs/figures.md), the reader's messages on bad files,
// the matching of a run's provenance, the value at a size, and the judge: a healthy 2 x H200
// table (nccl-tests' own figures of docs/figures.md) passes at every size, a slow one is named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/exit_codes.hpp"
#include "core/text_file.hpp"
#include "nvlink/judge.hpp"
#include "nvlink/nvlink_json.hpp"
#include "nvlink/render.hpp"
#include "regress/expected.hpp"
#include "report/figure.hpp"
#include "report/json.hpp"
#include "usage_error.hpp"

namespace commsweep::regress {
namespace {

using commsweep::testing::throws_usage;

report::Provenance expected_provenance(const std::string& gpu, int ranks, const std::string& nvls = "0",
                              const std::string& backend = "nccl") {
  report::Provenance p;
  p.backend = backend;
  p.ranks = ranks;
  for (int r = 0; r < ranks; ++r) {
    p.hosts.push_back(r < 8 ? "node-a" : "node-b");
    if (!gpu.empty()) p.gpus.push_back({r, p.hosts.back(), r, gpu, "0000:0" + std::to_string(r) + ":00.0"});
  }
  if (!nvls.empty()) p.environment["NCCL_NVLS_ENABLE"] = nvls;
  return p;
}

// A row of TEST at SIZE whose halves took US (busbw = size / time x FACTOR), rank SLOW the slowest.
report::ResultRow expected_row(const std::string& test, std::uint64_t size, double us, double factor, int slow = 0) {
  report::ResultRow r;
  r.test = test;
  r.size_bytes = size;
  for (report::Timing* t : {&r.out_of_place, &r.in_place}) {
    t->time_us = us;
    t->algbw_gbps = static_cast<double>(size) / us / 1e3;
    t->busbw_gbps = t->algbw_gbps * factor;
    t->slowest_rank = slow;
  }
  return r;
}

const std::string kExpectedEntry =
    "schema: commsweep.expected/1\n"
    "entries:\n"
    "  - id: t-any\n"
    "    gpu: any\n"
    "    gpus: 2\n"
    "    fabric: any\n"
    "    nvls: any\n"
    "    backend: mpi\n"
    "    workload: all_reduce\n"
    "    metric: busbw_gbps\n"
    "    busbw_gbps:\n"
    "      1KiB: 1\n"
    "      1MiB: 100\n"
    "    warn_below:\n"
    "      8B: 0.5\n"
    "      1MiB: 0.9\n"
    "    fail_below: 0.25\n"
    "    source:\n"
    "      kind: published\n"
    "      cite: a test's own figure\n"
    "      url: https://example.org/t\n";

TEST(Expected, ShippedEntriesEachCiteASourceAndOwnRunsAreInFiguresMd) {
  const ExpectedTable& table = builtin_expected();
  ASSERT_GE(table.entries().size(), 15u);
  // The figures pages: the collectives' and nvlink's, and EP's.
  const std::string figures = read_bounded_file(std::string(COMMSWEEP_SOURCE_DIR) + "/docs/figures.md", 1 << 22);
  const std::string figures_ep = read_bounded_file(std::string(COMMSWEEP_SOURCE_DIR) + "/docs/figures-ep.md", 1 << 22);
  int ep = 0, nvlink = 0;
  for (const auto& e : table.entries()) {
    ep += e.workload == "ep";
    nvlink += e.workload == "nvlink";
    EXPECT_FALSE(e.source.url.empty()) << e.id;
    // A figure of at least 1 (GB/s, or us: the smallest EP time is 20.5 us, the latency 0.9 us).
    EXPECT_GE(expected_at(table, e, e.points.back().first).value_or(0), e.metric == "latency_us" ? 0.5 : 1.0) << e.id;
    if (e.source.kind == "published") {
      EXPECT_EQ(e.source.url.rfind("https://", 0), 0u) << e.id;
    } else {  // an own run: machine, day, commit and command, and its section of a figures page
      const bool on_ep_page = e.source.url.rfind("docs/figures-ep.md#", 0) == 0;
      EXPECT_TRUE(on_ep_page || e.source.url.rfind("docs/figures.md#", 0) == 0) << e.id << ": " << e.source.url;
      EXPECT_NE((on_ep_page ? figures_ep : figures).find(e.source.commit), std::string::npos)
          << e.id << ": commit " << e.source.commit << " not in " << e.source.url;
      EXPECT_FALSE(e.source.machine.empty() || e.source.date.empty() || e.source.command.empty()) << e.id;
    }
  }
  // EP: one entry per implementation, data type and phase recorded (alltoallv and lsa on 4 and on 2
  // x H200, lsa on 4 x H100); nvlink: write and read by copy engine and by SM, and the latency, of
  // H100 and of H200.
  EXPECT_EQ(ep, 20);
  EXPECT_EQ(nvlink, 10);
  // The NVLS-off 8-GPU figure is the ~370 class, never NVLS's ~480 (a healthy run would WARN).
  EXPECT_LT(table.find("h100-x8-all_reduce-nvls-off")->points.back().second, 380);
  EXPECT_GT(table.find("h100-x8-all_reduce-nvls-on")->points.back().second, 450);
}

TEST(Expected, ABadFileIsOneUsageErrorNamingFileLineAndKey) {
  auto parse = [](const std::string& text) {
    return [text] { (void)parse_expected("t.yaml", text, "--expected", &builtin_expected()); };
  };
  auto with = [](const std::string& from, const std::string& to) {
    std::string s = kExpectedEntry;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_NO_THROW(parse(kExpectedEntry)());
  EXPECT_TRUE(throws_usage(parse("entries: []\n"), {"--expected t.yaml", "no \"schema: commsweep.expected/1\" line"}));
  EXPECT_TRUE(throws_usage(parse(with("commsweep.expected/1", "commsweep.expected/9")),
                           {"t.yaml:1: key \"schema\": \"commsweep.expected/9\" is not commsweep.expected/1"}));
  EXPECT_TRUE(throws_usage(parse(with("    gpus: 2\n", "    gpu_count: 2\n")),
                           {"t.yaml:5: unknown key \"gpu_count\""}));
  EXPECT_TRUE(throws_usage(parse(with("    fabric: any\n", "    fabrik: any\n")),
                           {"t.yaml:6: unknown key \"fabrik\" (did you mean 'fabric'?)"}));
  EXPECT_TRUE(throws_usage(parse(with("    workload: all_reduce\n", "")), {"t.yaml:3: entry without key \"workload\""}));
  EXPECT_TRUE(throws_usage(parse(with("nvls: any", "nvls: maybe")),
                           {"t.yaml:7: key \"nvls\": \"maybe\" is not one of: off on any"}));
  EXPECT_TRUE(throws_usage(parse(with("gpus: 2", "gpus: two")), {"t.yaml:5: key \"gpus\": a whole number"}));
  EXPECT_TRUE(throws_usage(parse(with("1KiB: 1", "1KB: 1")), {"t.yaml:12:", "key \"busbw_gbps\"", "1KB"}));
  EXPECT_TRUE(throws_usage(parse(with("1MiB: 100", "1MiB: -3")), {"t.yaml:13: busbw_gbps at 1MiB: -3 is not above 0 GB/s"}));
  EXPECT_TRUE(throws_usage(parse(with("fail_below: 0.25", "fail_below: 0.95")),
                           {"t.yaml:17: key \"fail_below\": 0.95 at", "is above warn_below's 0.50"}));
  EXPECT_TRUE(throws_usage(parse(with("fail_below: 0.25", "fail_below: 7")), {"t.yaml:17: key \"fail_below\": 7 is outside 0-2"}));
  EXPECT_TRUE(throws_usage(parse(with("      kind: published\n", "      kind: rumour\n")),
                           {"t.yaml:19: key \"kind\": \"rumour\" is not one of: published own-run"}));
  EXPECT_TRUE(throws_usage(parse(with("      url: https://example.org/t\n", "")), {"t.yaml:18: entry without key \"url\""}));
  EXPECT_TRUE(throws_usage(parse(with("    metric: busbw_gbps\n", "    metric: busbw_gbps\n    shape: no-such\n")),
                           {"t.yaml:11: key \"shape\": no entry \"no-such\""}));
  EXPECT_TRUE(throws_usage(parse(kExpectedEntry + kExpectedEntry.substr(kExpectedEntry.find("  - id"))), {"key \"id\": \"t-any\" is given twice"}));
  EXPECT_TRUE(throws_usage(parse(with("    gpus: 2\n", "    gpus: 2\n   bad: [\n")), {"--expected t.yaml:"}));
  EXPECT_TRUE(throws_usage([] { (void)expected_table("/nonexistent/e.yaml", "COMMSWEEP_EXPECTED="); },
                           {"COMMSWEEP_EXPECTED=/nonexistent/e.yaml"}));
}

TEST(Expected, ARunMatchesItsModelCountFabricAndNvlsOrSaysItHasNone) {
  const ExpectedTable& table = builtin_expected();
  const Expectations h200 = match(table, facts_of(expected_provenance("NVIDIA H200", 2), std::nullopt));
  ASSERT_NE(h200.for_workload("all_reduce"), nullptr);
  EXPECT_EQ(h200.for_workload("all_reduce")->id, "h200-x2-all_reduce");
  EXPECT_NE(h200.for_workload("alltoall"), nullptr);
  EXPECT_EQ(h200.for_workload("broadcast"), nullptr);
  EXPECT_NE(h200.note.find("NVIDIA H200 x 2 on NVLink, NVLS off"), std::string::npos) << h200.note;
  // NVLS left to NCCL: the 2-GPU collectives' figures are NVLS-off ones, and the note says how to
  // get them (ep's and nvlink's hold whatever NVLS: they use none).
  const Expectations on = match(table, facts_of(expected_provenance("NVIDIA H200", 2, ""), std::nullopt),
                                {"all_reduce", "alltoall"});
  EXPECT_TRUE(on.entries.empty());
  EXPECT_NE(on.note.find("no expectation for NVIDIA H200 x 2 on NVLink, NVLS on"), std::string::npos) << on.note;
  EXPECT_NE(on.note.find("NCCL_NVLS_ENABLE=0"), std::string::npos) << on.note;
  const Expectations h100on = match(table, facts_of(expected_provenance("NVIDIA H100 80GB HBM3", 8, "1"), std::nullopt));
  EXPECT_EQ(h100on.for_workload("all_reduce")->id, "h100-x8-all_reduce-nvls-on");
  const Expectations h20 = match(table, facts_of(expected_provenance("NVIDIA H20", 8), std::nullopt));
  EXPECT_TRUE(h20.entries.empty());
  EXPECT_NE(h20.note.find("no expectation for NVIDIA H20 x 8 on NVLink"), std::string::npos) << h20.note;
  // The mpi backend: no figure describes the host's MPI, and nothing is said.
  // (its provenance names host memory as each rank's device)
  const Expectations mpi = match(table, facts_of(expected_provenance("host memory (mpi backend)", 2, "0", "mpi"), std::nullopt));
  EXPECT_TRUE(mpi.entries.empty());
  EXPECT_TRUE(mpi.note.empty());
  // Between nodes: the network NCCL said it used picks the entry.
  report::TransportReport ib;
  for (int r = 0; r < 32; ++r) ib.ranks.push_back({r, "", 0, "IB", {}, "IB", true, false, 0, "", {}});
  report::Provenance four = expected_provenance("NVIDIA H100 80GB HBM3", 32, "");
  for (int r = 0; r < 32; ++r) four.hosts[static_cast<std::size_t>(r)] = "node-" + std::to_string(r / 8);
  EXPECT_EQ(match(table, facts_of(four, ib)).for_workload("all_reduce")->id, "h100-8x400-ib-all_reduce");
  // No network said: no collective entry (nvlink's, of each node's own NVLink, still hold).
  EXPECT_TRUE(match(table, facts_of(four, std::nullopt), {"all_reduce"}).entries.empty());
  EXPECT_EQ(match(table, facts_of(four, std::nullopt), {"nvlink"}).entries.size(), 5u);
  // A user's entry of a built-in id replaces it.
  ExpectedTable mine = table;
  ExpectedEntry e = *table.find("h200-x2-all_reduce");
  e.points = {{1 << 20, 1}};
  mine.put(e);
  EXPECT_EQ(mine.entries().size(), table.entries().size());
  EXPECT_EQ(expected_at(mine, *mine.find("h200-x2-all_reduce"), 1 << 20).value(), 1);
}

TEST(Expected, TheValueAtASizeIsLogLogBetweenSizesScaledBelowAndFlatAbove) {
  const ExpectedTable& table = builtin_expected();
  const ExpectedEntry& own = *table.find("h200-x2-all_reduce");
  EXPECT_DOUBLE_EQ(expected_at(table, own, 1 << 20).value(), 69.17);
  EXPECT_DOUBLE_EQ(expected_at(table, own, std::uint64_t{64} << 30).value(), 348.0);  // above: flat
  // 512 MiB, two thirds of the way from 128 MiB to 1 GiB in log size: 285.9^(1/3) x 327.5^(2/3).
  EXPECT_NEAR(expected_at(table, own, 512 << 20).value(), std::cbrt(285.9 * 327.5 * 327.5), 1e-9);
  // Below the first size, a constant time: busbw falls with the size.
  const ExpectedEntry& gather = *table.find("h200-x2-all_gather");
  EXPECT_NEAR(expected_at(table, gather, 16).value(), 0.001802 / 2, 1e-12);
  // A shape: the own curve scaled to meet the published figure at its size.
  const ExpectedEntry& h100 = *table.find("h100-x8-all_reduce-nvls-off");
  EXPECT_NEAR(expected_at(table, h100, std::uint64_t{16} << 30).value(), 368.76, 1e-9);
  EXPECT_NEAR(expected_at(table, h100, 1 << 20).value(), 82.03 * 368.76 / 365.13, 1e-9);
  // `from`: no expectation below it.
  const ExpectedEntry& ib = *table.find("h100-8x400-ib-all_reduce");
  EXPECT_FALSE(expected_at(table, ib, 1 << 20).has_value());
  EXPECT_TRUE(expected_at(table, ib, std::uint64_t{1} << 30).has_value());
  EXPECT_FALSE(expected_at(table, own, 0).has_value());
  // Floors are steps from their size up.
  EXPECT_DOUBLE_EQ(ratio_at(own.warn_below, 8), 0.50);
  EXPECT_DOUBLE_EQ(ratio_at(own.warn_below, (1 << 20) - 1), 0.50);
  EXPECT_DOUBLE_EQ(ratio_at(own.warn_below, 1 << 20), 0.80);
  EXPECT_DOUBLE_EQ(ratio_at(own.fail_below, std::uint64_t{8} << 30), 0.85);
  EXPECT_EQ(judge(own, std::uint64_t{1} << 30, 0.94), ExpectedVerdict::Pass);
  EXPECT_EQ(judge(own, std::uint64_t{1} << 30, 0.90), ExpectedVerdict::Warn);
  EXPECT_EQ(judge(own, std::uint64_t{1} << 30, 0.80), ExpectedVerdict::Fail);
  EXPECT_EQ(judge(own, 1024, 0.60), ExpectedVerdict::Pass);  // latency-bound: wide floors
}

// nccl-tests' own times on 2 x H200 (docs/figures.md, "The table beside nccl-tests on 2 x H200":
// every size it lists, both halves): the healthy reference tool is never below a WARN floor.
TEST(Expected, AHealthyTwoH200TableIsNeverWarnedAndASlowRowNamesItsRankAndNode) {
  const ExpectedTable& table = builtin_expected();
  const Expectations e = match(table, facts_of(expected_provenance("NVIDIA H200", 2), std::nullopt));
  const std::vector<std::string> hosts{"node-a", "node-b"};
  struct Point {
    const char* test;
    std::uint64_t size;
    double oop_us, ip_us, factor;
  };
  const Point healthy[] = {
      {"all_reduce", 8, 6.72, 8.26, 1},          {"all_reduce", 1024, 6.75, 6.39, 1},
      {"all_reduce", 65536, 8.11, 7.40, 1},      {"all_reduce", 524288, 10.85, 10.75, 1},
      {"all_reduce", 1 << 20, 15.23, 15.04, 1},  {"all_reduce", 16 << 20, 77.74, 76.02, 1},
      {"all_reduce", 1 << 30, 3237.51, 3232.39, 1}, {"all_reduce", std::uint64_t{8} << 30, 24499.20, 24521.70, 1},
      {"alltoall", 1 << 20, 13.81, 13.37, 0.5},  {"alltoall", 16 << 20, 50.73, 49.45, 0.5},
      {"alltoall", 128 << 20, 248.42, 243.82, 0.5}, {"alltoall", std::uint64_t{4} << 30, 6357.80, 5919.87, 0.5},
      {"all_gather", 32, 7.88, 8.01, 0.5},       {"all_gather", 1024, 7.73, 7.67, 0.5},
      {"all_gather", 65536, 7.99, 8.07, 0.5},    {"all_gather", 524288, 9.06, 8.83, 0.5},
      {"all_gather", 1 << 20, 11.67, 10.78, 0.5}, {"all_gather", 16 << 20, 54.22, 50.96, 0.5},
      {"all_gather", 1 << 30, 1952.43, 1799.53, 0.5}, {"reduce_scatter", 32, 9.61, 9.62, 0.5},
      {"reduce_scatter", 1024, 9.03, 9.07, 0.5}, {"reduce_scatter", 65536, 10.11, 9.88, 0.5},
      {"reduce_scatter", 524288, 10.52, 10.72, 0.5}, {"reduce_scatter", 1 << 20, 11.50, 11.36, 0.5},
      {"reduce_scatter", 16 << 20, 52.48, 51.25, 0.5}, {"reduce_scatter", 1 << 30, 1936.44, 1921.68, 0.5},
  };
  for (const Point& p : healthy) {
    report::ResultRow r = expected_row(p.test, p.size, p.oop_us, p.factor);
    r.in_place.time_us = p.ip_us;
    r.in_place.busbw_gbps = static_cast<double>(p.size) / p.ip_us / 1e3 * p.factor;
    annotate(e, r);
    ASSERT_TRUE(r.out_of_place.expected_gbps.has_value()) << p.test << " " << p.size;
    const auto f = finding_of(e, r, hosts);
    EXPECT_FALSE(f.has_value()) << (f ? f->text : "");
  }
  // Rank 1 three times slower at 1 GiB: FAIL, naming rank 1 and its node; 0.9 of it: WARN.
  report::ResultRow slow = expected_row("all_reduce", 1 << 30, 3 * 3237.51, 1, 1);
  annotate(e, slow);
  const auto fail = finding_of(e, slow, hosts);
  ASSERT_TRUE(fail.has_value());
  EXPECT_EQ(fail->severity, "FAIL");
  EXPECT_EQ(fail->rank, 1);
  EXPECT_EQ(fail->host, "node-b");
  EXPECT_NE(fail->text.find("FAIL expected: all_reduce 1 GiB busbw 110.55 GB/s (out of place, the better half) is "
                            "0.34 of the expected 327.50 (h200-x2-all_reduce, FAIL below 0.85); slowest rank 1 on node-b"),
            std::string::npos)
      << fail->text;
  report::ResultRow warn = expected_row("all_reduce", 1 << 30, 3278.88 / 0.9, 1, 1);
  warn.in_place.time_us = 3278.88 / 0.8;  // the in-place half is further below: the better one is named
  warn.in_place.busbw_gbps = static_cast<double>(1 << 30) / warn.in_place.time_us / 1e3;
  annotate(e, warn);
  EXPECT_EQ(finding_of(e, warn, hosts)->severity, "WARN");
  EXPECT_EQ(finding_of(e, warn, hosts)->half, "out_of_place");
  // One half at its figure: the other's dip is no finding (a slow link or GPU is slow in both).
  report::ResultRow one_half = warn;
  one_half.out_of_place = expected_row("all_reduce", 1 << 30, 3278.88, 1, 1).out_of_place;
  annotate(e, one_half);
  EXPECT_FALSE(finding_of(e, one_half, hosts).has_value());
  // One stalled iteration of twenty (a real 4 x H200 row: 144.4 us where the others took 11.8):
  // the median iteration is at the figure, so no WARN; without per-iteration times it is one.
  report::ResultRow spike = expected_row("all_reduce", 262144, 144.44, 1);
  spike.out_of_place.per_iter = report::IterationStats{};
  spike.out_of_place.per_iter->p50_us = 10.9;
  spike.in_place = spike.out_of_place;
  annotate(e, spike);
  EXPECT_FALSE(finding_of(e, spike, hosts).has_value());
  spike.out_of_place.per_iter.reset();
  spike.in_place.per_iter.reset();
  const auto stalled = finding_of(e, spike, hosts);
  ASSERT_TRUE(stalled.has_value());
  EXPECT_EQ(stalled->half, "out_of_place");
  spike.in_place.per_iter = report::IterationStats{};
  spike.in_place.per_iter->p50_us = 10.9;
  EXPECT_FALSE(finding_of(e, spike, hosts).has_value());
  // The slowed rank is slow in every iteration: its median is too, and the finding says so.
  report::ResultRow slowed = expected_row("all_reduce", 1 << 30, 3 * 3237.51, 1, 1);
  slowed.out_of_place.per_iter = report::IterationStats{};
  slowed.out_of_place.per_iter->p50_us = 3 * 3237.0;
  annotate(e, slowed);
  EXPECT_NE(finding_of(e, slowed, hosts)->text.find("(out of place, the better half, median iteration) is 0.34"),
            std::string::npos)
      << finding_of(e, slowed, hosts)->text;
  slowed.out_of_place.per_iter.reset();
  EXPECT_NE(finding_of(e, slowed, hosts)->text.find("(out of place, the better half) is 0.34"), std::string::npos)
      << finding_of(e, slowed, hosts)->text;
  // No entry for the workload: nothing annotated, nothing found.
  report::ResultRow other = expected_row("broadcast", 1 << 30, 1e6, 1);
  annotate(e, other);
  EXPECT_FALSE(other.out_of_place.expected_gbps.has_value());
  EXPECT_FALSE(finding_of(e, other, hosts).has_value());
}

}  // namespace
}  // namespace commsweep::regress

namespace commsweep::regress {
namespace {

// The JSON keeps each half's expected (of_expected is derived) and the findings; a file written
// before issue 45 has neither, and reads as no expectation.
TEST(Expected, TheJsonKeepsExpectedAndTheFindings) {
  report::Results r;
  r.provenance = expected_provenance("NVIDIA H200", 2);
  r.rows.push_back(expected_row("all_reduce", 1 << 30, 3 * 3237.51, 1, 1));
  const Expectations e = match(builtin_expected(), facts_of(r.provenance, std::nullopt));
  annotate(e, r.rows.back());
  r.expected_findings.push_back(*finding_of(e, r.rows.back(), {"node-a", "node-b"}));
  const auto doc = report::to_json(r);
  EXPECT_NEAR(doc["rows"][0]["out_of_place"]["of_expected"].get<double>(), 110.55 / 327.5, 1e-3);
  EXPECT_FALSE(doc["summary"]["ok"].get<bool>());  // a FAIL
  const report::Results back = report::results_from_json(doc);
  EXPECT_DOUBLE_EQ(*back.rows[0].in_place.expected_gbps, 327.5);
  ASSERT_EQ(back.expected_findings.size(), 1u);
  EXPECT_EQ(back.expected_findings[0].host, "node-b");
  EXPECT_EQ(report::to_json(back).dump(), doc.dump());
  auto old = doc;
  for (auto& half : {"out_of_place", "in_place"}) {
    old["rows"][0][half].erase("expected");
    old["rows"][0][half].erase("of_expected");
  }
  old["summary"].erase("expected_findings");
  EXPECT_FALSE(report::results_from_json(old).rows[0].out_of_place.expected_gbps.has_value());
}

}  // namespace
}  // namespace commsweep::regress

namespace commsweep::regress {
namespace {

std::string expected_fixture(const std::string& name) {
  return std::string(COMMSWEEP_SOURCE_DIR) + "/" + name;
}

// EP: a run on 4 x H200 other than the one its entries were taken from (results/samples/
// h200x4-ep-4096.json, 3c1511d: alltoallv at 4096 tokens, randn and skewed, bf16 and fp8) is
// within its floors; the same row with rank 1 twice as slow in dispatch FAILs, naming rank 1.
TEST(Expected, EpPhasesAreJudgedByTheirTimeAndASlowRankIsNamed) {
  report::Results r = report::read_results_file(expected_fixture("results/samples/h200x4-ep-4096.json"));
  ASSERT_FALSE(r.ep_rows.empty());
  r.provenance.hosts = {"node-a", "node-a", "node-a", "node-a"};
  const Expectations e = match(builtin_expected(), facts_of(r.provenance, std::nullopt), {"ep"});
  EXPECT_NE(e.note.find("expected figures for NVIDIA H200 x 4 on NVLink, NVLS off: ep (8 entries)"), std::string::npos)
      << e.note;
  int judged = 0;
  for (const report::Figure& f : report::figures_of(r.ep_rows)) {
    const auto x = expectation_of(e, f);
    // The entries are randn's: skewed routing and the bandwidths have none.
    const bool randn_time = f.metric == "time" && f.parts[1].value == "randn";
    ASSERT_EQ(x.has_value(), randn_time) << f.metric << " " << f.parts[1].value;
    if (!x) continue;
    ++judged;
    EXPECT_EQ(x->verdict, ExpectedVerdict::Pass) << x->entry->id << " " << x->of_expected;
    EXPECT_GT(x->of_expected, 0.95) << x->entry->id;  // 948 us against 921.25: 0.97
  }
  EXPECT_EQ(judged, 4);  // bf16 and fp8, dispatch and combine
  // Rank 1 twice as slow: every rank waits for its tokens, the mean over ranks grows with it.
  report::EpRow slow = r.ep_rows.front();
  ASSERT_EQ(slow.routing, "randn");
  for (double& t : slow.dispatch.rank_time_us) t *= 2;
  slow.dispatch.rank_time_us[1] *= 1.1;
  slow.dispatch.time_us *= 2;
  report::Figure dispatch = report::figures_of(std::vector<report::EpRow>{slow}).front();
  ASSERT_EQ(dispatch.metric, "time");
  const auto x = expectation_of(e, dispatch);
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->verdict, ExpectedVerdict::Fail);
  EXPECT_EQ(x->entry->id, "h200-x4-ep-alltoallv-bf16-dispatch");
  const std::string line = expected_finding_line(*x, "ep dispatch time", dispatch.value, dispatch.unit, "slowest rank 1");
  EXPECT_EQ(line.rfind("FAIL expected: ep dispatch time ", 0), 0u) << line;
  EXPECT_NE(line.find("x the expected 921.25 us"), std::string::npos) << line;
  EXPECT_NE(line.find("FAIL below 0.70); slowest rank 1"), std::string::npos) << line;
  // Times between the listed tokens: log-log, above the time's straight line (lenient); beyond
  // the last the time grows with the tokens, below the first it stays.
  const ExpectedEntry& lsa = *builtin_expected().find("h200-x4-ep-lsa-bf16-dispatch");
  EXPECT_DOUBLE_EQ(expected_at(builtin_expected(), lsa, 4096).value(), 502.8);
  EXPECT_DOUBLE_EQ(expected_at(builtin_expected(), lsa, 8192).value(), 2 * 502.8);
  EXPECT_DOUBLE_EQ(expected_at(builtin_expected(), lsa, 64).value(), 25.5);
  // Eight GPUs have no recorded EP run: said once, each phase null.
  report::Provenance eight = r.provenance;
  eight.ranks = 8;
  eight.hosts.resize(8, eight.hosts.front());
  eight.gpus.resize(8, eight.gpus.front());
  const Expectations none = match(builtin_expected(), facts_of(eight, std::nullopt), {"ep"});
  EXPECT_TRUE(none.entries.empty());
  EXPECT_NE(none.note.find("no expectation for NVIDIA H200 x 8 on NVLink, NVLS off (ep)"), std::string::npos) << none.note;
}

// EP's JSON: each phase's expected (metric, value, entry) and of_expected, null where none; a
// file without them reads as none; an EP finding keeps its case and metric.
TEST(Expected, EpJsonKeepsEachPhasesExpectedAndItsFindings) {
  report::Results r;
  r.provenance = expected_provenance("NVIDIA H200", 4);
  report::EpRow row;
  row.impl = "lsa";
  row.routing = "randn";
  row.tokens = 4096;
  row.hidden = 7168;
  row.topk = 8;
  row.experts = 256;
  row.dtype = "bf16";
  row.dispatch.time_us = 502.8;
  row.dispatch.expected = report::ExpectedValue{"time_us", 502.8, 1.0, "h200-x4-ep-lsa-bf16-dispatch"};
  r.ep_rows.push_back(row);
  report::ExpectedFinding f;
  f.severity = "FAIL";
  f.workload = f.test = "ep";
  f.case_text = "lsa randn h7168 k8 e256 bf16 4096 tokens";
  f.metric = "time_us";
  f.half = "dispatch";
  f.busbw_gbps = 1005.6;
  f.expected_gbps = 502.8;
  f.of_expected = 0.5;
  f.floor = 0.7;
  f.rank = 1;
  f.host = "node-a";
  f.entry = "h200-x4-ep-lsa-bf16-dispatch";
  f.text = "FAIL expected: ...";
  r.expected_findings.push_back(f);
  const auto doc = report::to_json(r);
  const auto& phase = doc["ep_rows"][0]["dispatch"];
  EXPECT_EQ(phase["expected"]["metric"], "time_us");
  EXPECT_DOUBLE_EQ(phase["of_expected"].get<double>(), 1.0);
  EXPECT_TRUE(doc["ep_rows"][0]["combine"]["expected"].is_null());
  EXPECT_TRUE(doc["ep_rows"][0]["combine"]["of_expected"].is_null());
  EXPECT_EQ(doc["summary"]["expected_findings"][0]["phase"], "dispatch");
  EXPECT_DOUBLE_EQ(doc["summary"]["expected_findings"][0]["value"].get<double>(), 1005.6);
  EXPECT_FALSE(doc["summary"]["ok"].get<bool>());
  const report::Results back = report::results_from_json(doc);
  EXPECT_EQ(report::to_json(back).dump(), doc.dump());
  auto old = doc;
  old["ep_rows"][0]["dispatch"].erase("expected");
  old["ep_rows"][0]["dispatch"].erase("of_expected");
  EXPECT_FALSE(report::results_from_json(old).ep_rows[0].dispatch.expected.has_value());
}

}  // namespace
}  // namespace commsweep::regress

namespace commsweep::nvlink {
namespace {

NvlinkRun expected_nvlink_capture(const std::string& name) {
  return run_from_json(report::read_json_file(std::string(COMMSWEEP_SOURCE_DIR) + "/tests/fixtures/nvlink/" + name));
}

// nvlink: the captured healthy 4 x H100 node (tests/fixtures/nvlink/h100x4.json) holds every
// pair's write, read and latency to the expected figures, no finding; the same machine's planted
// slow pair (each copy of 1 <-> 2 made 4 times) FAILs those two pairs alone, naming them and the
// test, and exits 10.
TEST(Expected, NvlinkPairsAreJudgedAndAPlantedSlowPairIsNamed) {
  const NvlinkRun healthy = expected_nvlink_capture("h100x4.json");
  const regress::Expectations e =
      regress::match(regress::builtin_expected(), regress::facts_of(healthy.provenance, std::nullopt), {"nvlink"});
  EXPECT_NE(e.note.find("expected figures for NVIDIA H100 80GB HBM3 x 4 on NVLink"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("nvlink (5 entries)"), std::string::npos) << e.note;
  const Analysis a = analyse(healthy, &e);
  EXPECT_EQ(a.expected_fails + a.expected_warns, 0);
  ASSERT_EQ(a.nodes[0].pairs.size(), 12u);
  for (const PairVerdict& v : a.nodes[0].pairs) {
    ASSERT_EQ(v.expected.size(), 5u);  // ce_write, ce_read, sm_write, sm_read, latency_us
    for (const auto& x : v.expected) EXPECT_GT(x.of_expected, 0.93) << x.key;
  }
  const auto doc = to_json(healthy, a);
  EXPECT_NEAR(doc["nodes"][0]["pairs"][0]["of_expected"]["ce_write"].get<double>(), 396.24 / 396.17, 1e-3);
  EXPECT_EQ(doc["nodes"][0]["pairs"][0]["expected"]["latency_us"]["entry"], "h100-nvlink-latency");
  EXPECT_EQ(judge::exit_code_of(outcomes_of(healthy, a)), 0);
  // --show-expected: a table per node of each pair's expected figures and shares, after its
  // matrices; none without it.
  const std::string shown = render_report(healthy, a, true);
  EXPECT_NE(shown.find("# expected figures (--show-expected): per pair and test the expected figure"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("\n#src>dst  expected  of_exp  expected  of_exp  expected  of_exp  expected  of_exp  expected  "
                       "of_exp\n"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("\n     0>1    396.17    1.00    "), std::string::npos) << shown;
  EXPECT_EQ(render_report(healthy, a).find("# expected figures"), std::string::npos);

  const NvlinkRun planted = expected_nvlink_capture("h100x4-planted-slow-pair-1-2.json");
  const Analysis p = analyse(planted, &e);
  EXPECT_EQ(p.expected_fails, 8);  // 1 -> 2 and 2 -> 1, four bandwidths each: 99 of 396 GB/s
  EXPECT_EQ(p.expected_warns, 0);
  for (const std::string& f : p.nodes[0].expected_findings) {
    EXPECT_EQ(f.rfind("FAIL expected: nvlink ", 0), 0u) << f;
    const bool one_two = f.find("GPU 1 (rank 1, 0000:00:07.0) -> GPU 2 (rank 2, 0000:00:08.0)") != std::string::npos;
    const bool two_one = f.find("GPU 2 (rank 2, 0000:00:08.0) -> GPU 1 (rank 1, 0000:00:07.0)") != std::string::npos;
    EXPECT_TRUE(one_two || two_one) << f;
    EXPECT_NE(f.find("; on vm"), std::string::npos) << f;
  }
  EXPECT_NE(p.nodes[0].expected_findings.front().find("nvlink ce_write GPU 1"), std::string::npos)
      << p.nodes[0].expected_findings.front();
  EXPECT_EQ(judge::exit_code_of(outcomes_of(planted, p)), exit_code::kSlow);
  // H200 has its own entries (the lent 2 x H200's runs), which hold the H100 capture's pairs too;
  // a model with no nvlink run recorded has none, said once; each pair's expected is null.
  NvlinkRun h200 = healthy;
  for (auto& g : h200.provenance.gpus) g.name = "NVIDIA H200";
  const regress::Expectations h200s =
      regress::match(regress::builtin_expected(), regress::facts_of(h200.provenance, std::nullopt), {"nvlink"});
  ASSERT_EQ(h200s.entries.size(), 5u);
  EXPECT_EQ(h200s.entries.front()->id.rfind("h200-nvlink-", 0), 0u) << h200s.entries.front()->id;
  EXPECT_EQ(analyse(h200, &h200s).expected_fails, 0);
  NvlinkRun h20 = healthy;
  for (auto& g : h20.provenance.gpus) g.name = "NVIDIA H20";
  const regress::Expectations none =
      regress::match(regress::builtin_expected(), regress::facts_of(h20.provenance, std::nullopt), {"nvlink"});
  EXPECT_NE(none.note.find("no expectation for NVIDIA H20 x 4 on NVLink"), std::string::npos) << none.note;
  EXPECT_TRUE(to_json(h20, analyse(h20, &none))["nodes"][0]["pairs"][0]["expected"].is_null());
  EXPECT_NE(render_report(h20, analyse(h20, &none), true)
                .find("# expected figures (--show-expected): none applies to this node's GPUs\n"),
            std::string::npos);
}

}  // namespace
}  // namespace commsweep::nvlink
