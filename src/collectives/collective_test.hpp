// The collectives: each fills the engine's CollectiveTest descriptor (sweep/sweep_test.hpp),
// and the registry lists them; the engine never includes this header.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pattern/pattern.hpp"
#include "sweep/sweep_test.hpp"

namespace commsweep {

// The descriptors of the first seven, named for the unit tests' extra checks; the registry
// needs no declaration (collective_tests() is generated from the files in collectives/).
const CollectiveTest& all_reduce_test();
const CollectiveTest& all_gather_test();
const CollectiveTest& reduce_scatter_test();
const CollectiveTest& alltoall_test();
const CollectiveTest& broadcast_test();
const CollectiveTest& reduce_test();
const CollectiveTest& sendrecv_test();

// All tests in their descriptors' `order`; find by name ("all_reduce", also "allreduce").
const std::vector<const CollectiveTest*>& collective_tests();
const CollectiveTest* find_collective_test(std::string_view name);
// --help's busbw lines: the collectives grouped by their factor's text, in the registry's
// order ("  all_reduce 2(n-1)/n   all_gather, reduce_scatter, alltoall (n-1)/n\n...").
std::string bus_factor_help_lines();

// Shared building blocks of the test files.
namespace expect {
pattern::Expect reduced(const pattern::Spec& spec, std::size_t index_base);
pattern::Expect copied_from(const pattern::Spec& spec, int src_rank, std::size_t index_base);
pattern::Expect copied_in_blocks(const pattern::Spec& spec, std::size_t block,
                                 std::size_t index_base);
}  // namespace expect
inline bool every_rank_checked(int, int) { return true; }
// nccl-tests 2.19's split of a buffer among ranks: whole elements, each rank's block a
// multiple of 16 bytes, so that sizes (and busbw) line up with nccl-tests' rows.
inline std::size_t per_rank_block(std::size_t count, std::size_t element_bytes, int nranks) {
  const std::size_t align = element_bytes < 16 ? 16 / element_bytes : 1;
  return (count / static_cast<std::size_t>(nranks)) / align * align;
}
// A gathered buffer (all_gather, gather): the size is the whole buffer, each rank sends 1/n
// of it, and in place its block sits at its offset there; block r of the output is rank r's
// input.
inline Counts gathered_counts(std::size_t count, std::size_t element_bytes, int n) {
  const std::size_t per_rank = per_rank_block(count, element_bytes, n);
  return {per_rank, per_rank * static_cast<std::size_t>(n), per_rank, per_rank, 0};
}
inline pattern::Expect gathered_blocks(const pattern::Spec& spec, const Counts& c, int, int, int) {
  return expect::copied_in_blocks(spec, c.param_count, 0);
}
inline double factor_one(int) { return 1.0; }
inline double factor_n_minus_1_over_n(int n) { return static_cast<double>(n - 1) / n; }

}  // namespace commsweep
