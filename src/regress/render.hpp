// Printers of a Comparison, separate from the judging: the verdict table (stdout), markdown
// (a CI log, a chat message), self-contained HTML with inline SVG plots, Prometheus text
// exposition (node-exporter's textfile collector) and JSON.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/strings.hpp"
#include "regress/baseline.hpp"
#include "regress/compare.hpp"

namespace commsweep::regress {

// An earlier run from the history folder, for the plots.
struct HistoryRun {
  std::string name;  // its file name
  std::map<Key, Observation> observed;
};

// One line per test, type, operator, root and size: the worse of its two halves (or EP phases).
struct GroupLine {
  const Judgement* worst = nullptr;
  int members = 0;
};
std::vector<GroupLine> group_lines(const Comparison& c);

// Aligned plain text: the verdict table, the stragglers, the counts and the exit code.
std::string render_table(const Comparison& c);
// The table's last two lines, the counts and the exit code with its meaning: all that
// `compare --quiet` prints, so that a quiet nightly's log still says why it failed.
std::string render_verdict(const Comparison& c);
std::string render_markdown(const Comparison& c);
std::string render_html(const Comparison& c, const Baseline& baseline,
                        const std::vector<HistoryRun>& history);
std::string render_prometheus(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

// Shared formatting (and core/strings' fixed(): "12.34"): "-3.2%", "" for values that do not apply.
std::string signed_pct(double v);
std::string value_text(const Judgement& j, double v);
std::string exit_meaning(int exit_code);
// "0 FAIL, 2 WARN, 3 NOISY, 10 PASS, 40 SAME; 6 not judged (not in the baseline)": every printer's count.
std::string counts_text(const Comparison& c);
// Said before the verdicts: "setup differs, judged anyway (--allow-mismatch): backend: run mpi,
// baseline nccl; ..." and "setup not checked: ..."; "" when there is nothing to say.
std::string setup_differs_text(const Comparison& c);
std::string setup_not_checked_text(const Comparison& c);

}  // namespace commsweep::regress
