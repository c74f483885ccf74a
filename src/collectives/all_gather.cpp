#include "collectives/collective_test.hpp"

namespace commsweep {

// The gathered buffer on every rank (collective_test.hpp: gathered_counts, gathered_blocks).
const CollectiveTest& all_gather_test() {
  static const CollectiveTest test{"all_gather", "every rank gets every rank's block",
                                   20, false, false, true, factor_n_minus_1_over_n, "(n-1)/n",
                                   gathered_counts, gathered_blocks, every_rank_checked};
  return test;
}

}  // namespace commsweep
