#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

Counts counts(std::size_t count, std::size_t, int) { return {count, count, count, 0, 0}; }

pattern::Expect expected(const pattern::Spec& spec, const Counts&, int, int, int) {
  return expect::reduced(spec, 0);
}

// Only the root receives anything.
bool root_only(int rank, int root) { return rank == root; }

}  // namespace

const CollectiveTest& reduce_test() {
  static const CollectiveTest test{"reduce", "the root gets the reduction of all inputs",
                                   60, true, true, true, factor_one, "1", counts,
                                   expected, root_only};
  return test;
}

}  // namespace commsweep
