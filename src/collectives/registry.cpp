#include <algorithm>
#include <cctype>
#include <string>

#include "collectives/collective_test.hpp"

namespace commsweep {

const std::vector<const CollectiveTest*>& collective_tests() {
  static const std::vector<const CollectiveTest*> tests{
      &all_reduce_test(), &all_gather_test(), &reduce_scatter_test(), &alltoall_test(),
      &broadcast_test(),  &reduce_test(),     &sendrecv_test()};
  return tests;
}

const CollectiveTest* find_collective_test(std::string_view name) {
  auto squash = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c != '_' && c != '-') out.push_back(static_cast<char>(std::tolower(c)));
    }
    return out;
  };
  const std::string wanted = squash(name);
  for (const auto* t : collective_tests()) {
    if (squash(t->name) == wanted || squash(t->name) + "perf" == wanted) return t;
  }
  return nullptr;
}

namespace expect {

pattern::Expect reduced(const pattern::Spec& spec, std::size_t index_base) {
  return pattern::Expect{spec, 1, 0, 0, index_base};
}

pattern::Expect copied_from(const pattern::Spec& spec, int src_rank, std::size_t index_base) {
  return pattern::Expect{spec, 0, src_rank, 0, index_base};
}

pattern::Expect copied_in_blocks(const pattern::Spec& spec, std::size_t block,
                                 std::size_t index_base) {
  return pattern::Expect{spec, 0, 0, block, index_base};
}

}  // namespace expect
}  // namespace commsweep
