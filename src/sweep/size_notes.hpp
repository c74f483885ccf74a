// What the table says of the sizes asked for that it does not show as asked (nccl-tests rounds
// them): rounded down to whole elements or per-rank blocks, or skipped, being below the
// smallest message the collective can split among the ranks. Counted over the sizes asked for,
// not the planned ones: several small sizes round onto one empty message (plan_sizes keeps one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "sweep/sweep_test.hpp"

namespace commsweep {

// The smallest message of TEST in TYPE on NRANKS ranks, in bytes (0 when none up to 64 KiB per
// rank, where no rounding rule reaches).
std::uint64_t smallest_message(const CollectiveTest& test, DataType type, int nranks);

// The notes for SIZES (the sweep's, asked for): "3 of 6 sizes rounded down ...", "3 sizes
// skipped (8, 16 and 32 B): ..." naming the cause; none when every size is measured as asked.
std::vector<std::string> size_notes(const CollectiveTest& test, const std::vector<std::uint64_t>& sizes, DataType type,
                                    int nranks);

}  // namespace commsweep
