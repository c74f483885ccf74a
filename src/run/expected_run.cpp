#include "run/expected_run.hpp"

#include <cstdlib>

#include "core/error.hpp"

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

}  // namespace commsweep
