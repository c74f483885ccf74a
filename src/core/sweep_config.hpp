// What a collective sweep runs: sizes, types, operators, iterations, checks, limits.
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.hpp"

namespace commsweep {

// How per-rank times combine into the printed time (nccl-tests' -a).
enum class Average { Rank0 = 0, Mean = 1, Min = 2, Max = 3 };

// Which bytes the iterations touch (--buffers). Cold, as nccl-tests: every warm-up, timed and
// check iteration uses the next slice of buffers sized for -e, so a message that fits in the
// GPU's L2 cache is not read back from it on the next iteration while the buffers hold more
// than one slice of it. Warm: the same bytes every iteration (cache-resident up to L2's size).
enum class Buffers { Cold = 0, Warm = 1 };
const char* name_of(Buffers buffers);

// Faults planted on purpose, for the tests that prove detection works (--fault, a test hook):
// WrongElement flips one output element; NeverJoin stays away from the arrival barrier; Hang
// arrives, then stops inside the timed iterations; Alloc makes the buffer allocation fail.
// NAME:RANK@SIZE: never-join, hang and async-error wait for the first size of at least SIZE
// bytes (the sizes before it are measured, as they would be before a real failure).
struct Fault {
  enum class Kind { None, WrongElement, NeverJoin, Hang, Alloc, AsyncError, Slow };
  Kind kind = Kind::None;
  int rank = 0;
  std::uint64_t from_bytes = 0;
};

struct SweepConfig {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = std::uint64_t{128} << 20;
  std::uint64_t step_bytes = std::uint64_t{1} << 20;
  std::uint64_t step_factor = 2;  // > 1: geometric sweep; 1: linear by step_bytes
  int iters = 20;
  int warmup = 5;
  int check = 1;  // check iterations after timing; 0 turns verification off
  std::vector<DataType> types{DataType::Float32};
  std::vector<RedOp> ops{RedOp::Sum};
  int root = 0;
  bool blocking = false;
  int graph_launches = 0;
  bool device_timer = false;  // --timer device: CUDA events instead of nccl-tests' host clock
  Buffers buffers = Buffers::Cold;
  // --per-iteration: each timed iteration's time kept per rank (report::IterationStats); off
  // times the row as one span only, as before issue 26 (to measure what keeping them costs).
  bool per_iteration = true;
  bool show_expected = false;    // --show-expected: the expected busbw and the halves' ratios to it
  bool show_algo = false;        // --show-algo: NCCL's algorithm, protocol, channels in the table
  bool show_iterations = false;  // --show-iterations: the per-iteration columns in the table
  Average average = Average::Mean;
  int cycles = 1;  // 0: until interrupted
  double timeout_s = 300;
  std::uint64_t seed = 0x636f6d6d73776570ull;  // "commswep"
  Fault fault;
};

}  // namespace commsweep
