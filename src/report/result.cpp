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

}  // namespace commsweep::report
