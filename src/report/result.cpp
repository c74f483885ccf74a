#include "report/result.hpp"

namespace commsweep::report {

double average_busbw(const std::vector<ResultRow>& rows) {
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    sum += r.out_of_place.busbw_gbps + r.in_place.busbw_gbps;
    n += 2;
  }
  return n == 0 ? 0.0 : sum / n;
}

std::uint64_t wrong_elements(const std::vector<ResultRow>& rows) {
  std::uint64_t wrong = 0;
  for (const auto& r : rows) wrong += r.out_of_place.wrong.value_or(0) + r.in_place.wrong.value_or(0);
  return wrong;
}

std::uint64_t wrong_elements(const std::vector<EpRow>& rows) {
  std::uint64_t wrong = 0;
  for (const auto& r : rows) wrong += r.dispatch.wrong.value_or(0) + r.combine.wrong.value_or(0);
  return wrong;
}

bool expected_fail(const Results& results) {
  for (const auto& f : results.expected_findings)
    if (f.severity == "FAIL") return true;
  return false;
}

}  // namespace commsweep::report
