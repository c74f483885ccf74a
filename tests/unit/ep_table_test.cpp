// The EP table: fixed-width, right-aligned rows that parse by whitespace (15 fields), headers
// aligned with them, a row's note under it, and the footer that states the byte and time
// conventions.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "report/ep_table.hpp"
#include "report/result.hpp"

namespace commsweep::report {
namespace {

EpPhase phase(double time_us, double bandwidth, std::uint64_t wrong) {
  EpPhase p;
  p.time_us = time_us;
  p.bandwidth_gbps = bandwidth;
  p.wrong = wrong;
  return p;
}

EpRow row(int tokens, int hidden, int topk, int experts, const char* dtype, const char* routing,
          EpPhase dispatch, EpPhase combine) {
  EpRow r;
  r.tokens = tokens;
  r.hidden = hidden;
  r.topk = topk;
  r.experts = experts;
  r.dtype = dtype;
  r.routing = routing;
  r.iters = 20;
  r.dispatch = dispatch;
  r.combine = combine;
  return r;
}

std::vector<std::string> fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

TEST(FormatEpRow, DeepEpSizes) {
  const EpRow r = row(4096, 7168, 8, 256, "bf16", "randn", phase(1234.56, 153.27, 0),
                      phase(2345.6, 150.02, 0));
  EXPECT_EQ(format_ep_row(r),
            "    4096     7168     8      256   bf16     randn  alltoallv  1234.56   153.27       0"
            "  2345.60   150.02       0      N/A     0.0");
}

// --show-expected: each phase's expected time and its share after the back-to-back columns, "-"
// where no entry applies (here combine's), the header's names over them; without it, the row is
// the table's as before.
TEST(FormatEpRow, ShowExpectedAddsEachPhasesExpectedTimeAndShare) {
  EpRow r = row(4096, 7168, 8, 256, "bf16", "randn", phase(1842.5, 153.27, 0), phase(2345.6, 150.02, 0));
  r.dispatch.expected = ExpectedValue{"time_us", 921.25, 0.5, "h200-x4-ep-alltoallv-bf16-dispatch"};
  EXPECT_EQ(format_ep_expected(r), "    921.25    0.50         -       -");
  const auto f = fields(format_ep_row(r) + format_ep_expected(r));
  ASSERT_EQ(f.size(), 19u);
  EXPECT_EQ(f[15], "921.25");
  EXPECT_EQ(f[16], "0.50");
  EXPECT_EQ(f[17], "-");
  std::ostringstream plain, shown;
  EpTablePrinter(plain).row(r);
  EpTablePrinter(shown, true).row(r);
  EXPECT_EQ(plain.str(), format_ep_row(r) + "\n");
  EXPECT_EQ(shown.str(), format_ep_row(r) + format_ep_expected(r) + "\n");
  std::ostringstream header;
  EpTablePrinter(header, true).header({"v", "p", {}});
  EXPECT_NE(header.str().find("pair  spread  expected  of_exp  expected  of_exp\n"), std::string::npos) << header.str();
  EXPECT_NE(header.str().find("(%)      (us)     (x)      (us)     (x)\n"), std::string::npos) << header.str();
}

// The back-to-back pair's period and the larger of the two phases' rank spreads (2 x H200's
// 128-token fp8 lsa row, issue 40).
TEST(FormatEpRow, TheBackToBackPairAndTheRanksSpread) {
  EpRow r = row(128, 7168, 8, 256, "fp8", "randn", phase(16.52, 114.33, 0), phase(13.62, 269.39, 0));
  r.impl = "lsa";
  r.dispatch.rank_spread_pct = 0.5;
  r.combine.rank_spread_pct = 7.34;
  r.back_to_back = EpBackToBack{100.27, {100.27, 100.2}, 20};
  const auto f = fields(format_ep_row(r));
  ASSERT_EQ(f.size(), 15u);
  EXPECT_EQ(f[13], "100.27");
  EXPECT_EQ(f[14], "7.3");
}

TEST(FormatEpRow, UncheckedPhasesReadNotApplicable) {
  EpRow r = row(128, 7168, 8, 256, "fp8", "randn", phase(26.5, 128.5, 0), phase(35.5, 185.7, 0));
  r.dispatch.wrong.reset();  // -c 0: nothing was compared
  r.combine.wrong.reset();
  const auto f = fields(format_ep_row(r));
  ASSERT_EQ(f.size(), 15u);
  EXPECT_EQ(f[9], "N/A");
  EXPECT_EQ(f[12], "N/A");
  EXPECT_EQ(format_ep_row(r).size(), format_ep_row(row(128, 7168, 8, 256, "fp8", "randn", phase(26.5, 128.5, 0),
                                                       phase(35.5, 185.7, 0))).size());
}

TEST(FormatEpRow, ParsesByWhitespaceIntoFifteenFields) {
  EpRow r = row(0, 256, 2, 12, "fp8", "balanced", phase(0, 0, 0), phase(3.5, 0, 17));
  r.impl = "lsa";
  const auto f = fields(format_ep_row(r));
  ASSERT_EQ(f.size(), 15u);
  EXPECT_EQ(f[0], "0");
  EXPECT_EQ(f[4], "fp8");
  EXPECT_EQ(f[5], "balanced");
  EXPECT_EQ(f[6], "lsa");
  EXPECT_EQ(f[7], "0.00");
  EXPECT_EQ(f[10], "3.50");
  EXPECT_EQ(f[12], "17");
}

// Columns keep their place whatever the numbers: fewer decimals, then an exponent.
TEST(FormatEpRow, WideNumbersKeepTheColumns) {
  const EpRow small = row(1, 8, 1, 1, "bf16", "file", phase(1, 1, 0), phase(1, 1, 0));
  const EpRow large = row(16777216, 1048576, 1024, 1048576, "fp8", "balanced",
                          phase(123456789, 12345.678, 999999), phase(99999.96, 1e9, 0));
  const std::string a = format_ep_row(small), b = format_ep_row(large);
  EXPECT_EQ(a.size(), 129u) << a;
  EXPECT_EQ(b.size(), 129u) << b;
  EXPECT_EQ(fields(b)[7], "1.2e+08");
  EXPECT_EQ(fields(b)[8], "12345.7");
  EXPECT_EQ(fields(b)[10], "100000");
  EXPECT_EQ(fields(b)[11], "1.0e+09");
}

TEST(EpFooter, StatesTheVerdictAndTheConventions) {
  std::ostringstream out;
  EpTablePrinter(out).footer(0);
  const std::string s = out.str();
  EXPECT_EQ(s.substr(0, s.find('\n') + 1), "# Out of bounds values : 0 OK\n");
  EXPECT_NE(s.find("one copy per (token, destination rank) including the rank's own "
                   "(DeepEP's accounting); the JSON also has fabric bytes, excluding self"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("median over the timed iterations"), std::string::npos) << s;
  EXPECT_NE(s.find("# fresh entry: the ranks start each timed dispatch and combine together, after a barrier; pair = "),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("# EP test concluded: ep\n"), std::string::npos) << s;

  std::ostringstream failed;
  EpTablePrinter(failed).footer(42);
  EXPECT_EQ(failed.str().substr(0, 35), "# Out of bounds values : 42 FAILED\n");
}

std::string read_ep_golden(const std::string& name) {
  std::ifstream in(std::string(COMMSWEEP_GOLDEN_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing golden file " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Golden, EpTable) {
  EpTableHeader h;
  h.version_line =
      "commsweep version 0.1.0 (0123456789ab) backend nccl nccl-headers=2.28.9 nccl-library=2.28.9";
  h.parameters_line =
      "nRanks 4 nHosts 1 warmup iters: 5 iters: 20 validation: 1 timeout: 300s seed: 0";
  for (int r = 0; r < 4; ++r) {
    std::ostringstream line;
    line << "Rank  " << r << " Group  0 Pid  4100" << r << " on      node1 device  " << r
         << " [0000:" << std::hex << 0x18 + r << ":00.0] NVIDIA H200";
    h.device_lines.push_back(line.str());
  }
  std::ostringstream out;
  EpTablePrinter printer(out);
  printer.header(h);
  printer.note("a note");
  printer.row(row(128, 7168, 8, 256, "bf16", "randn", phase(41.27, 45.9, 0), phase(60.3, 31.44, 0)));
  printer.row(row(512, 7168, 8, 32, "fp8", "skewed", phase(88.1, 84.02, 0), phase(150.77, 95.61, 0)));
  printer.row(row(4096, 7168, 8, 256, "bf16", "balanced", phase(1234.56, 153.27, 0),
                  phase(2345.6, 150.02, 0)));
  EpRow lsa = row(4096, 7168, 8, 256, "bf16", "balanced", phase(592.87, 358.11, 0),
                  phase(592.36, 358.43, 0));
  lsa.impl = "lsa";
  lsa.note = "a row's note";
  lsa.dispatch.rank_spread_pct = 0.2;
  lsa.combine.rank_spread_pct = 1.04;
  lsa.back_to_back = EpBackToBack{1953.31, {1953.31, 1950.2, 1951.0, 1949.9}, 20};
  printer.row(lsa);
  printer.footer(0);
  EXPECT_EQ(out.str(), read_ep_golden("ep_table.txt"));
}

}  // namespace
}  // namespace commsweep::report
