#include <cstdio>

#include "regress/render.hpp"

namespace commsweep::regress {
namespace {

// The line a judgement belongs to: its key without the half / phase.
Key line_key(Key k) {
  k.place.clear();
  return k;
}

}  // namespace

std::vector<GroupLine> group_lines(const Comparison& c) {
  std::vector<GroupLine> lines;
  for (const auto& j : c.judgements) {
    if (!lines.empty() && line_key(lines.back().worst->key) == line_key(j.key)) {
      auto& line = lines.back();
      ++line.members;
      // On a tie the out-of-place half speaks for the line, as it does in the plots; an nvlink
      // pair's ce_write, as its own matrix.
      const bool lead = j.key.place == "out_of_place" || j.key.place == "ce_write";
      if (j.verdict > line.worst->verdict || (j.verdict == line.worst->verdict && lead)) {
        line.worst = &j;
      }
      continue;
    }
    lines.push_back({&j, 1});
  }
  return lines;
}

std::string signed_pct(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string value_text(const Judgement& j, double v) {
  if (j.missing || j.metric == Metric::None) return "-";
  return j.metric == Metric::Time ? fixed(v) + " us" : fixed(v) + " GB/s";
}

std::string counts_text(const Comparison& c) {
  return std::to_string(verdict_count(c, Verdict::Fail)) + " FAIL, " + std::to_string(verdict_count(c, Verdict::Warn)) +
         " WARN, " + std::to_string(verdict_count(c, Verdict::Noisy)) + " NOISY, " +
         std::to_string(verdict_count(c, Verdict::Pass)) + " PASS, " +
         std::to_string(verdict_count(c, Verdict::Same)) + " SAME; " +
         std::to_string(verdict_count(c, Verdict::NotJudged)) + " not judged (not in the baseline)";
}

std::string setup_differs_text(const Comparison& c) {
  std::string text;
  for (const auto& d : c.setup.differences) text += (text.empty() ? "" : "; ") + describe(d);
  return text.empty() ? "" : "setup differs, judged anyway (--allow-mismatch): " + text;
}

std::string setup_not_checked_text(const Comparison& c) {
  std::string text;
  for (const auto& what : c.setup.not_checked) text += (text.empty() ? "" : "; ") + what;
  return text.empty() ? "" : "setup not checked: " + text;
}

std::string exit_meaning(int code) {
  // 0 is compare's verdict, "pass"; the others are the words of core/exit_codes.hpp's table.
  return code == exit_code::kOk ? "pass" : std::string(exit_code_name(code));
}

}  // namespace commsweep::regress
