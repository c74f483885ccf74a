#include "collectives/collective_test.hpp"

namespace commsweep {
namespace {

Counts counts(std::size_t count, std::size_t, int) { return {count, count, count, 0, 0}; }

pattern::Expect expected(const pattern::Spec& spec, const Counts&, int, int, int root) {
  return expect::copied_from(spec, root, 0);
}

}  // namespace

const CollectiveTest& broadcast_test() {
  static const CollectiveTest test{"broadcast", "the root's buffer reaches every rank",
                                   50, false, true, true, factor_one, "1", counts,
                                   expected, every_rank_checked};
  return test;
}

}  // namespace commsweep
