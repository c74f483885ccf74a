// The text table, column for column as nccl-tests 2.19 prints it: scripts that parse
// nccl-tests output (by whitespace or by fixed columns) must read ours unchanged.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "report/result.hpp"
#include "report/table.hpp"

namespace commsweep::report {
namespace {

Timing half(double time_us, double algbw, double busbw, std::optional<std::uint64_t> wrong) {
  Timing t;
  t.time_us = time_us;
  t.algbw_gbps = algbw;
  t.busbw_gbps = busbw;
  t.wrong = wrong;
  return t;
}

ResultRow row(std::uint64_t bytes, std::uint64_t count, const char* type, const char* op,
              Timing out, Timing in) {
  ResultRow r;
  r.test = "all_reduce";
  r.size_bytes = bytes;
  r.count = count;
  r.type = type;
  r.redop = op;
  r.root = -1;
  r.out_of_place = out;
  r.in_place = in;
  return r;
}

// Lines copied from nccl-tests 2.19 output.
TEST(FormatRow, SmallAllReduceRow) {
  const ResultRow r = row(8, 2, "float", "sum", half(30.39, 0.000263, 0.000395, 0),
                          half(30.21, 0.000265, 0.000397, 0));
  EXPECT_EQ(format_row(r),
            "           8             2     float     sum      -1    30.39    0.00    0.00       0"
            "    30.21    0.00    0.00       0");
}

TEST(FormatRow, LargeAllReduceRowDropsATimeDecimal) {
  const ResultRow r = row(8589934592ull, 2147483648ull, "float", "sum",
                          half(35288.5, 243.42, 365.13, 0), half(35298.1, 243.35, 365.03, 0));
  EXPECT_EQ(format_row(r),
            "  8589934592    2147483648     float     sum      -1  35288.5  243.42  365.13       0"
            "  35298.1  243.35  365.03       0");
}

TEST(FormatRow, UncheckedInPlaceIsNotApplicable) {
  const ResultRow r = row(1048576, 65536, "float", "none", half(50.67, 20.69, 15.52, 0),
                          half(51.29, 20.44, 15.33, std::nullopt));
  EXPECT_EQ(format_row(r),
            "     1048576         65536     float    none      -1    50.67   20.69   15.52       0"
            "    51.29   20.44   15.33    N/A");
}

TEST(FormatRow, RootAndWrongCounts) {
  ResultRow r =
      row(1024, 256, "bfloat16", "max", half(10, 0.1, 0.1, 3), half(10, 0.1, 0.1, 123456));
  r.root = 3;
  const std::string s = format_row(r);
  EXPECT_EQ(s.substr(0, 52), "        1024           256  bfloat16     max       3");
  EXPECT_EQ(s.substr(s.size() - 8), "  123456");
  EXPECT_NE(s.find("    0.10       3"), std::string::npos) << s;
}

// Columns keep their width when a bandwidth reaches four digits (NVLink-class fabrics):
// fewer decimals, as nccl-tests does, instead of shifting every column to the right.
TEST(FormatRow, FourDigitBandwidthsKeepTheColumns) {
  const ResultRow r = row(8589934592ull, 2147483648ull, "float", "sum",
                          half(4000, 2147.48, 3758.1, 0), half(4000, 999.996, 1750.875, 0));
  const std::string s = format_row(r);
  EXPECT_EQ(s.size(), 118u) << s;
  EXPECT_EQ(s.substr(52), "  4000.00  2147.5  3758.1       0  4000.00  1000.0  1750.9       0");
}

TEST(FormatTime, TwoDecimalsWhileTheyFit) {
  EXPECT_EQ(format_time(30.39), "  30.39");
  EXPECT_EQ(format_time(0), "   0.00");
  EXPECT_EQ(format_time(0.004), "   0.00");
  EXPECT_EQ(format_time(9999.99), "9999.99");
}

TEST(FormatTime, FewerDecimalsAsTheNumberGrows) {
  EXPECT_EQ(format_time(12345.67), "12345.7");
  EXPECT_EQ(format_time(35288.5), "35288.5");
  EXPECT_EQ(format_time(99999.94), "99999.9");
  EXPECT_EQ(format_time(123456.7), " 123457");
  EXPECT_EQ(format_time(9999999.4), "9999999");
}

// A value that rounds up into the next decade must take the narrower form too.
TEST(FormatTime, RoundingUpToTheNextWidth) {
  EXPECT_EQ(format_time(9999.996), "10000.0");
  EXPECT_EQ(format_time(99999.96), " 100000");
}

TEST(FormatTime, BeyondSevenDigitsUsesAnExponent) {
  EXPECT_EQ(format_time(12345678), "1.2e+07");
  EXPECT_EQ(format_time(3.6e9), "3.6e+09");  // an hour
}

TEST(FormatTime, AlwaysSevenWide) {
  for (double us = 1e-3; us < 1e12; us *= 1.37) {
    EXPECT_EQ(format_time(us).size(), 7u) << us;
  }
}

TEST(Footer, NoWrongElementsIsOk) {
  std::ostringstream out;
  TablePrinter(out).footer("all_reduce", 0, 124.87912);
  EXPECT_EQ(out.str(),
            "# Out of bounds values : 0 OK\n"
            "# Avg bus bandwidth    : 124.879 \n"
            "#\n"
            "# Collective test concluded: all_reduce\n"
            "#\n");
}

TEST(Footer, WrongElementsFail) {
  std::ostringstream out;
  TablePrinter(out).footer("sendrecv", 3, 0);
  const std::string s = out.str();
  EXPECT_EQ(s.substr(0, s.find('\n') + 1), "# Out of bounds values : 3 FAILED\n");
  EXPECT_NE(s.find("# Avg bus bandwidth    : 0 \n"), std::string::npos) << s;
  EXPECT_NE(s.find("# Collective test concluded: sendrecv\n"), std::string::npos) << s;
}

TEST(Note, IsACommentLine) {
  std::ostringstream out;
  TablePrinter(out).note("2 sizes skipped");
  EXPECT_EQ(out.str(), "# 2 sizes skipped\n");
}

std::string read_golden(const std::string& name) {
  std::ifstream in(std::string(COMMSWEEP_GOLDEN_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing golden file " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A whole table: header, a note, three rows, footer.
TEST(Golden, AllReduceTable) {
  TableHeader h;
  h.test = "all_reduce";
  h.version_line =
      "commsweep version 0.1.0 (0123456789ab) backend nccl nccl-headers=2.28.9 nccl-library=2.28.9";
  h.parameters_line =
      "nRanks 4 nHosts 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
      "iters: 20 agg iters: 1 validation: 1 graph: 0 blocking: 0 timeout: 300s";
  for (int r = 0; r < 4; ++r) {
    std::ostringstream line;
    line << "Rank  " << r << " Group  0 Pid  4100" << r << " on      node1 device  " << r
         << " [0000:" << std::hex << 0x18 + r << ":00.0] NVIDIA H100 80GB HBM3";
    h.device_lines.push_back(line.str());
  }
  const std::vector<ResultRow> rows{
      row(8, 2, "float", "sum", half(30.39, 0, 0, 0), half(30.21, 0, 0, 0)),
      row(1048576, 262144, "float", "sum", half(50.67, 20.69, 31.04, 0),
          half(51.29, 20.44, 30.66, 0)),
      row(8589934592ull, 2147483648ull, "float", "sum", half(35288.5, 243.42, 365.13, 0),
          half(35298.1, 243.35, 365.03, 0)),
  };
  std::ostringstream out;
  TablePrinter printer(out);
  printer.header(h);
  printer.note("skipping f8e4m3: fp8 reductions need compute capability 9.0");
  for (const auto& r : rows) printer.row(r);
  printer.footer("all_reduce", 0, average_busbw(rows));
  EXPECT_EQ(out.str(), read_golden("all_reduce_table.txt"));
}

}  // namespace
}  // namespace commsweep::report
