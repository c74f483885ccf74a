// The rules that hold a figure to a reference of its own kind, written once for every workload
// that judges one (issue 43, "one judge"): pairs' slow pair (against the median rail and the
// top-third pair, pairs/outliers.hpp), nvlink's slow pair and GPU (against its node's median and
// the topology's rate; a latency against its node's median, nvlink/judge.hpp), and compare's
// stragglers (a rank's time against the ranks' median and MAD, regress/stragglers.hpp). They read
// numbers only; which figures are compared, and how a finding is worded, stay the workload's.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace commsweep::judge {

// A value against its reference: VALUE / REFERENCE (0 where there is no reference), and
// whether that is slow.
struct Against {
  double ratio = 0;
  bool slow = false;
};

// Higher is better (a bandwidth): slow below FRACTION x REFERENCE. A reference of 0 or less is
// none (nothing measured): nothing is slow against it.
Against below(double value, double reference, double fraction);
// Lower is better (a latency): slow above OVER x REFERENCE. A reference of 0 or less is none.
Against above(double value, double reference, double over);

// One member's figure among its peers: its value (higher is better) and its place in the caller's list.
struct Candidate {
  double value = 0;
  int index = 0;
};
// The slowest of the fastest third (the ceil(n / 3)-th highest value; among equal values the
// lower index, so that the choice is stable), or none of none. Noise only slows a measurement,
// and one bad node among 3 or more leaves a third of its pairs healthy, so this member is a
// healthy one's, while up to a third measured fast by a fluke cannot lift it (pairs/outliers.hpp
// says why, with the numbers). nth_element: linear in the count.
std::optional<Candidate> top_third(std::vector<Candidate> candidates);

// Lower is better (a rank's time): the members of VALUES above median + MAD_K x MAD and more
// than MIN_ABOVE_PCT percent above the median, each with how much above it (percent). The MAD
// (median absolute deviation) is robust to the outlier itself, unlike the standard deviation.
// Fewer than 3 values have no majority to be an outlier from: none.
std::vector<std::pair<int, double>> outliers_above(const std::vector<double>& values, double mad_k, double min_above_pct);

// Naming the suspect: COUNTS holds how often each member was in a slow finding (each slow pair
// names both its nodes). The members counted the most, when that is more than once (one finding
// alone cannot tell which of its members is at fault) and not every member's count (then none
// stands out: a fabric-wide slowdown, or noise, and naming them all would say nothing). Their
// positions in COUNTS, in order.
std::vector<std::size_t> most_named(const std::vector<int>& counts);

}  // namespace commsweep::judge
