// The median of a set of values, written once for every layer that reports or judges one (the
// ep phases, the pairs' rails, the regression tools' runs, the sheets' printers).
#pragma once

#include <vector>

namespace commsweep {

// The middle value (the mean of the two middle ones for an even count); 0 for none. Linear in
// the count (nth_element): a pairs run of thousands of nodes asks it of millions of rails.
double median(std::vector<double> values);

}  // namespace commsweep
