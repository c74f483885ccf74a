#include "run/expected_run.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "judge/verdict.hpp"
#include "report/figure.hpp"

namespace commsweep {

ExpectedFile expected_file(const std::string& flag) {
  if (!flag.empty()) return {flag, "--expected"};
  const char* v = std::getenv("COMMSWEEP_EXPECTED");
  return v && *v ? ExpectedFile{v, "COMMSWEEP_EXPECTED="} : ExpectedFile{};
}

regress::ExpectedTable expected_table(World& world, const ExpectedFile& file, double timeout_s) {
  regress::ExpectedTable table;
  std::string why;
  if (world.rank() == 0) {
    try {
      table = regress::expected_table(file.path, file.named);
    } catch (const Error& e) {
      why = e.what();
    }
  }
  if (world.sum(why.empty() ? 0 : 1, Phase{"checking the expected figures", Deadline::after(timeout_s)}) > 0)
    throw_usage(world.rank() == 0 ? why : file.named + " " + file.path + ": refused on rank 0");
  return table;
}

std::vector<report::ExpectedFinding> expected_findings(const regress::Expectations& expectations,
                                                       const std::vector<report::ResultRow>& rows,
                                                       const std::vector<std::string>& hosts) {
  std::vector<report::ExpectedFinding> out;
  for (const auto& row : rows)
    if (auto f = regress::finding_of(expectations, row, hosts)) out.push_back(std::move(*f));
  return out;
}

namespace {

report::EpPhase& ep_phase_of(report::EpRow& row, const std::string& phase) {
  return phase == "combine" ? row.combine : row.dispatch;
}

std::string ep_part(const report::Figure& f, const char* name) {
  for (const auto& p : f.parts)
    if (p.name == name) return p.value;
  return "";
}

// "lsa randn h7168 k8 e256 bf16 4096 tokens": an EP row's case as its table names it.
std::string ep_case_text(const report::Figure& f) {
  return ep_part(f, "impl") + " " + ep_part(f, "routing") + " h" + ep_part(f, "hidden") + " k" + ep_part(f, "topk") +
         " e" + ep_part(f, "experts") + " " + ep_part(f, "dtype") + " " + ep_part(f, "tokens") + " tokens";
}

}  // namespace

void annotate_ep(const regress::Expectations& expectations, report::EpRow& row) {
  for (const report::Figure& f : report::figures_of(std::vector<report::EpRow>{row})) {
    report::EpPhase& phase = ep_phase_of(row, ep_part(f, "phase"));
    if (phase.expected) continue;  // one judged figure a phase: its entry's metric
    if (const auto e = regress::expectation_of(expectations, f))
      phase.expected = report::ExpectedValue{regress::figure_metric(f), e->expected, e->of_expected, e->entry->id};
  }
}

std::vector<report::ExpectedFinding> ep_expected_findings(const regress::Expectations& expectations,
                                                          const std::vector<report::EpRow>& rows,
                                                          const std::vector<std::string>& hosts) {
  std::vector<report::ExpectedFinding> out;
  for (const report::Figure& f : report::figures_of(rows)) {
    const auto e = regress::expectation_of(expectations, f);
    if (!e || e->verdict == regress::ExpectedVerdict::Pass) continue;
    // The phase's slowest rank: the one the others waited for.
    int rank = 0;
    for (std::size_t r = 1; r < f.spread.rank_values.size(); ++r)
      if (f.spread.rank_values[r] > f.spread.rank_values[static_cast<std::size_t>(rank)]) rank = static_cast<int>(r);
    report::ExpectedFinding finding;
    finding.severity = judge::name_of(e->verdict);
    finding.workload = f.workload;
    finding.test = f.workload;
    finding.case_text = ep_case_text(f);
    finding.metric = regress::figure_metric(f);
    finding.half = ep_part(f, "phase");
    finding.size_bytes = f.series.size;
    finding.busbw_gbps = f.value;
    finding.expected_gbps = e->expected;
    finding.of_expected = e->of_expected;
    finding.floor = e->floor;
    finding.rank = rank;
    finding.host = rank < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(rank)] : "?";
    finding.entry = e->entry->id;
    finding.text = regress::expected_finding_line(*e, "ep " + finding.case_text + " " + finding.half + " " + f.metric,
                                                  f.value, f.unit,
                                                  "slowest rank " + std::to_string(rank) + " on " + finding.host);
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace commsweep
