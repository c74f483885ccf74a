// Markdown for a CI log or a chat message: the outcome first, then only what is not fine.
#include <sstream>

#include "regress/render.hpp"

namespace commsweep::regress {

std::string render_markdown(const Comparison& c) {
  std::ostringstream out;
  const char* icon = c.exit_code == exit_code::kOk ? "PASS" : c.exit_code == exit_code::kNoisy ? "NOISY" : "FAIL";
  out << "## commsweep compare: " << icon << " (" << c.shape << ", " << c.mode << ")\n\n";
  out << "- results: `" << c.results_file << "` (started " << c.started_at << ")\n";
  out << "- baseline: `" << c.baseline_file << "`\n";
  for (const std::string& line : {setup_differs_text(c), setup_not_checked_text(c)}) {
    if (!line.empty()) out << "- " << line << "\n";
  }
  out << "- verdicts: " << counts_text(c) << "; wrong elements: " << c.wrong_total << "\n";
  out << "- exit code " << c.exit_code << " (" << exit_meaning(c.exit_code) << ")\n";
  if (!c.complete) out << "- the run is **incomplete** (" << c.ended_by << "): its missing sizes fail\n";
  out << "\n";
  bool header = false;
  for (const auto& line : group_lines(c)) {
    const Judgement& j = *line.worst;
    if (j.verdict != Verdict::Fail && j.verdict != Verdict::Noisy && j.verdict != Verdict::Warn) continue;
    if (!header) {
      out << "| verdict | measurement | baseline | now | change | reason |\n";
      out << "|---|---|---:|---:|---:|---|\n";
      header = true;
    }
    const bool measured = j.has_baseline && !j.missing;
    out << "| " << name_of(j.verdict) << " | " << describe(j.key) << " | "
        << (measured ? value_text(j, j.baseline_value) : "-") << " | "
        << (j.missing ? "-" : value_text(j, j.value)) << " | "
        << (measured ? signed_pct(j.change_pct) : "-") << " | " << j.reason << " |\n";
  }
  if (!header) out << "No measurement is worse than the warn band.\n";
  out << "\n";
  if (c.stragglers.empty()) out << "Stragglers: none.\n";
  for (const auto& h : c.health) out << "- health " << h.severity << ": `" << h.host << "` " << h.component << ": " << health_text(h) << "\n";
  for (const auto& s : c.stragglers) {
    out << "- straggler: rank " << s.rank << " on host `" << s.host << "` (GPU " << s.gpu << "): an outlier in "
        << s.outlier_samples << " of " << s.samples << " samples, worst " << fixed(s.worst_slower_pct, 1)
        << "% slower than the median rank (" << s.worst_at << ")"
        << (s.throttled.empty() ? "" : "; its GPU was throttled: " + s.throttled) << "\n";
  }
  return out.str();
}

}  // namespace commsweep::regress
