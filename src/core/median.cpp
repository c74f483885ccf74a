#include "core/median.hpp"

#include <algorithm>

namespace commsweep {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t n = values.size();
  const auto mid = values.begin() + static_cast<long>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  return (*std::max_element(values.begin(), mid) + *mid) / 2;
}

}  // namespace commsweep
