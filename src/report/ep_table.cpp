#include "report/ep_table.hpp"

#include <algorithm>
#include <cstdio>

#include "report/table.hpp"

namespace commsweep::report {
namespace {

// Column widths; each column after the first is preceded by two blanks.
constexpr int kTokensW = 8, kHiddenW = 7, kTopkW = 4, kExpertsW = 7, kDtypeW = 5, kRoutingW = 8,
              kImplW = 9;
constexpr int kTimeW = 7;     // format_time's width, as nccl-tests
constexpr int kBandwidthW = 7;  // room for four-digit GB/s with a decimal (NVLink-class)
constexpr int kWrongW = 6;
constexpr int kPhaseW = 2 + kTimeW + 2 + kBandwidthW + 2 + kWrongW;
constexpr int kSpreadW = 6;
constexpr int kBackToBackW = 2 + kTimeW + 2 + kSpreadW;

std::string configuration(const char* tokens, const char* hidden, const char* topk,
                          const char* experts, const char* dtype, const char* routing,
                          const char* impl) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%*s  %*s  %*s  %*s  %*s  %*s  %*s", kTokensW, tokens, kHiddenW,
                hidden, kTopkW, topk, kExpertsW, experts, kDtypeW, dtype, kRoutingW, routing,
                kImplW, impl);
  return buf;
}

std::string phase_columns(const char* time, const char* bandwidth, const char* wrong) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "  %*s  %*s  %*s", kTimeW, time, kBandwidthW, bandwidth,
                kWrongW, wrong);
  return buf;
}

// The back-to-back pair's period and the ranks' spread (the larger of the two phases').
std::string pair_columns(const char* period, const char* spread) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "  %*s  %*s", kTimeW, period, kSpreadW, spread);
  return buf;
}

std::string pair_values(const EpRow& r) {
  char spread[32];
  std::snprintf(spread, sizeof(spread), "%.1f", std::max(r.dispatch.rank_spread_pct, r.combine.rank_spread_pct));
  return pair_columns(r.back_to_back ? format_time(r.back_to_back->period_us).c_str() : "N/A", spread);
}

std::string phase_values(const EpPhase& p) {
  return phase_columns(format_time(p.time_us).c_str(), fit_column(p.bandwidth_gbps, kBandwidthW).c_str(),
                       p.wrong ? std::to_string(*p.wrong).c_str() : "N/A");
}

// --show-expected's columns: per phase the expected time (us) and the phase's share of it.
constexpr int kExpectedW = 8;  // "expected", the widest of its header and its times
constexpr int kShareW = 6;
constexpr int kExpectedPhaseW = 2 + kExpectedW + 2 + kShareW;

std::string expected_columns(const char* expected, const char* share) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "  %*s  %*s", kExpectedW, expected, kShareW, share);
  return buf;
}

std::string expected_values(const EpPhase& p) {
  if (!p.expected) return expected_columns("-", "-");
  return expected_columns(fit_column(p.expected->value, kExpectedW).c_str(),
                          fit_column(p.expected->of_expected, kShareW).c_str());
}

// A header line: the row's layout, its first character made the comment mark.
std::string comment(std::string line) {
  line[0] = '#';
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

std::string centred(const std::string& label, int width) {
  const int left = (width - static_cast<int>(label.size()) + 1) / 2;
  return std::string(left, ' ') + label + std::string(width - left - label.size(), ' ');
}

}  // namespace

std::string format_ep_row(const EpRow& r) {
  const std::string numbers[] = {std::to_string(r.tokens), std::to_string(r.hidden),
                                 std::to_string(r.topk), std::to_string(r.experts)};
  return configuration(numbers[0].c_str(), numbers[1].c_str(), numbers[2].c_str(),
                       numbers[3].c_str(), r.dtype.c_str(), r.routing.c_str(), r.impl.c_str()) +
         phase_values(r.dispatch) + phase_values(r.combine) + pair_values(r);
}

std::string format_ep_expected(const EpRow& r) { return expected_values(r.dispatch) + expected_values(r.combine); }

void EpTablePrinter::header(const EpTableHeader& h) {
  out_ << "# " << h.version_line << "\n";
  out_ << "# EP test starting: ep\n";
  out_ << "# " << h.parameters_line << "\n";
  out_ << "#\n# Using devices\n";
  for (const auto& line : h.device_lines) out_ << "#  " << line << "\n";
  out_ << "#\n";
  const std::string blank = configuration("", "", "", "", "", "", "");
  const bool x = expected_;
  out_ << comment(blank + centred("dispatch", kPhaseW) + centred("combine", kPhaseW) +
                  centred("back to back", kBackToBackW) +
                  (x ? centred("dispatch", kExpectedPhaseW) + centred("combine", kExpectedPhaseW) : ""))
       << "\n";
  out_ << comment(configuration("tokens", "hidden", "topk", "experts", "dtype", "routing", "impl") +
                  phase_columns("time", "bw", "#wrong") + phase_columns("time", "bw", "#wrong") +
                  pair_columns("pair", "spread") +
                  (x ? expected_columns("expected", "of_exp") + expected_columns("expected", "of_exp") : ""))
       << "\n";
  out_ << comment(configuration("(/rank)", "", "", "", "", "", "") +
                  phase_columns("(us)", "(GB/s)", "") + phase_columns("(us)", "(GB/s)", "") +
                  pair_columns("(us)", "(%)") +
                  (x ? expected_columns("(us)", "(x)") + expected_columns("(us)", "(x)") : ""))
       << "\n";
  out_.flush();
}

void EpTablePrinter::note(const std::string& text) { out_ << "# " << text << "\n" << std::flush; }

void EpTablePrinter::row(const EpRow& r) {
  out_ << format_ep_row(r) << (expected_ ? format_ep_expected(r) : "") << "\n";
  if (!r.note.empty()) out_ << "# " << r.note << "\n";
  out_ << std::flush;
}

void EpTablePrinter::footer(std::uint64_t wrong_total) {
  out_ << "# Out of bounds values : " << wrong_total << (wrong_total == 0 ? " OK" : " FAILED")
       << "\n";
  out_ << "# bandwidth = bytes received per rank in dispatch (sent in combine), one copy per "
          "(token, destination rank) including the rank's own (DeepEP's accounting); the JSON "
          "also has fabric bytes, excluding self\n";
  out_ << "# time = per rank the median over the timed iterations, then the mean over ranks; "
          "bandwidth = the mean over ranks of each rank's bytes / its time; GB/s = 1e9 bytes/s\n";
  out_ << "# fresh entry: the ranks start each timed dispatch and combine together, after a barrier; pair = the "
          "same iterations again back to back (dispatch, experts, combine, no barrier between them), the slowest "
          "rank's time per pair; spread = (slowest - fastest rank) / time, the larger of dispatch's and "
          "combine's\n";
  out_ << "#\n# EP test concluded: ep\n#\n" << std::flush;
}

}  // namespace commsweep::report
