// The verdict table on stdout: aligned columns, one line per size, worst half shown.
#include <algorithm>
#include <sstream>

#include "regress/render.hpp"

namespace commsweep::regress {
namespace {

using Cells = std::vector<std::string>;

std::vector<Cells> table_cells(const Comparison& c) {
  std::vector<Cells> rows;
  rows.push_back({"verdict", "test", "type", "op", "root", "size", "where", "metric", "baseline",
                  "now", "change", "spread", "reason"});
  for (const auto& line : group_lines(c)) {
    const Judgement& j = *line.worst;
    const Key& k = j.key;
    const bool measured = j.has_baseline && !j.missing;
    const std::string test = k.is_ep() ? "ep " + k.config : k.is_matrix() ? k.test + " " + k.config : k.test;
    rows.push_back({name_of(j.verdict), test, k.type, k.redop,
                    k.root >= 0 ? std::to_string(k.root) : "-",
                    k.is_ep() ? std::to_string(k.size) + " tok" : size_text(k.size), k.place,
                    name_of(j.metric), measured ? value_text(j, j.baseline_value) : "-",
                    j.missing ? "-" : value_text(j, j.value), measured ? signed_pct(j.change_pct) : "-",
                    measured ? fixed(j.noise_pct, 1) + "%" : "-", j.reason});
  }
  return rows;
}

void print_aligned(std::ostringstream& out, const std::vector<Cells>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      // The last column (the reason) is not padded: no trailing blanks.
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace

std::string render_table(const Comparison& c) {
  std::ostringstream out;
  out << "# commsweep compare: " << c.results_file << " against " << c.baseline_file << " ("
      << c.shape << ", " << c.mode << ")\n";
  for (const std::string& line : {setup_differs_text(c), setup_not_checked_text(c)}) {
    if (!line.empty()) out << line << "\n";
  }
  print_aligned(out, table_cells(c));
  out << "\n";
  if (!c.complete) out << "The run is incomplete (" << c.ended_by << "): its missing sizes fail.\n";
  for (const auto& s : c.stragglers) {
    out << "straggler: rank " << s.rank << " (host " << s.host << ", GPU " << s.gpu << ") slower than the ranks' median in "
        << s.outlier_samples << " of " << s.samples << " samples, worst +" << fixed(s.worst_slower_pct, 1)
        << "% at " << s.worst_at << (s.throttled.empty() ? "" : "; its GPU was throttled: " + s.throttled) << "\n";
  }
  if (c.stragglers.empty()) out << "stragglers: none\n";
  for (const auto& h : c.health)
    out << "health " << h.severity << ": " << h.host << " " << h.component << ": " << health_text(h) << "\n";
  for (const auto& line : c.health_evidence) out << "evidence: " << line << "\n";
  out << render_verdict(c);
  return out.str();
}

std::string render_verdict(const Comparison& c) {
  return "verdicts (each half or phase): " + counts_text(c) + "; wrong elements: " + std::to_string(c.wrong_total) +
         "\nexit " + std::to_string(c.exit_code) + ": " + exit_meaning(c.exit_code) + "\n";
}

}  // namespace commsweep::regress
