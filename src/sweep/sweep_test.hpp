// A registered sweep test: how many elements each side moves for a size, nccl-tests' busbw
// factor, and what every output element must hold. The engine defines the descriptor and runs
// it; the workloads (collectives/) fill it, so the arrow points from the workloads to the engine.
#pragma once

#include <cstddef>
#include <string_view>

#include "comm/backend.hpp"
#include "pattern/pattern.hpp"

namespace commsweep {

// nccl-tests' accounting for one size: the counts passed to the buffers and to the call, and
// where the send / receive buffers sit inside the receive / send buffer when in place.
struct Counts {
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
  std::size_t param_count = 0;          // the count the collective is called with (and printed)
  std::size_t send_inplace_offset = 0;  // in elements, times the rank
  std::size_t recv_inplace_offset = 0;
};

struct CollectiveTest {
  std::string_view name;        // "all_reduce"
  std::string_view summary;     // one line for --help
  int order;                    // where `commsweep list` and --help place it (ascending)
  bool reduces;                 // takes -o
  bool rooted;                  // takes -r
  bool in_place_checked;        // false: in-place #wrong is N/A (as nccl-tests' alltoall)
  // busbw = algbw * factor: the bytes each rank must move over its busiest link relative to
  // the algorithm bandwidth, so that figures compare with the hardware's peak.
  double (*bus_factor)(int nranks);
  std::string_view bus_factor_text;  // the factor as --help prints it: "2(n-1)/n", "1"
  Counts (*counts)(std::size_t count, std::size_t element_bytes, int nranks);
  pattern::Expect (*expect)(const pattern::Spec& spec, const Counts& c, int rank, int nranks,
                            int root);
  bool (*output_checked)(int rank, int root);
};

}  // namespace commsweep
