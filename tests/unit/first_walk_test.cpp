// What a new user trips on (issue 42): the pure decisions behind its messages, each with the
// exact text the user reads.
#include <gtest/gtest.h>

#include <string>

#include "collectives/collective_test.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "sweep/size_notes.hpp"

namespace commsweep {
namespace {

TEST(ErrorLine, NamesTheGpuOnlyWhereThereIsOne) {
  const Error e(ErrorKind::Runtime, "--json: cannot write /dev/full: No space left on device");
  EXPECT_EQ(error_line(0, "vm", -1, e),
            "commsweep: rank 0 (host vm): error: --json: cannot write /dev/full: No space left on device");
  EXPECT_EQ(error_line(3, "node1", 2, e),
            "commsweep: rank 3 (host node1, GPU 2): error: --json: cannot write /dev/full: No space left on device");
}

// mpirun -np 3 commsweep all_gather -e 256: 8, 16 and 32 B round onto one empty message (each
// rank's block is a multiple of 16 B), which the note once counted as 1 size "smaller than one
// float element per rank" (32 B holds 2 floats per rank).
TEST(SizeNotes, CountTheSizesAskedForAndNameTheSixteenByteBlock) {
  const std::vector<std::uint64_t> sizes = {8, 16, 32, 64, 128, 256};
  EXPECT_EQ(smallest_message(all_gather_test(), DataType::Float32, 3), 48u);
  EXPECT_EQ(size_notes(all_gather_test(), sizes, DataType::Float32, 3),
            (std::vector<std::string>{
                "3 of 6 sizes rounded down (as nccl-tests does) to whole float elements, divisible among 3 ranks; "
                "the size column shows the bytes moved",
                "3 sizes skipped (8, 16 and 32 B): below 48 B, the smallest all_gather of float on 3 ranks: each "
                "rank's block is a multiple of 16 B (nccl-tests' split of a buffer among ranks)"}));
}

TEST(SizeNotes, ASizeBelowOneElementIsSaidSo) {
  EXPECT_EQ(size_notes(all_reduce_test(), {2, 4, 8}, DataType::Float64, 2),
            (std::vector<std::string>{"2 sizes skipped (2 and 4 B): smaller than one double element (8 B)"}));
  EXPECT_EQ(size_notes(all_reduce_test(), {8, 16}, DataType::Float32, 4), std::vector<std::string>{});
}

TEST(SizeNotes, ListsAtMostFiveSizes) {
  const auto notes = size_notes(alltoall_test(), {1, 2, 4, 8, 16, 32, 64, 128}, DataType::Int8, 8);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "7 sizes skipped (1, 2, 4, 8, 16, ... B): below 128 B, the smallest alltoall of int8 on 8 ranks: "
                      "each rank's block is a multiple of 16 B (nccl-tests' split of a buffer among ranks)");
}

// Sizes in messages are in the powers of 1024 they are typed in, with their IEC names: never
// "8TB" (which reads as 8 * 10^12) for -e 8T.
TEST(BinarySizeText, SaysTiBAndCutsRatherThanRoundsUp) {
  EXPECT_EQ(binary_size_text(std::uint64_t{8} << 40), "8 TiB");
  EXPECT_EQ(binary_size_text(std::uint64_t{32} << 30), "32 GiB");
  EXPECT_EQ(binary_size_text(1000), "1000 B");
  EXPECT_EQ(binary_size_text(1536), "1.5 KiB");
  EXPECT_EQ(binary_size_text(24657117184), "22.9 GiB");  // 22.96: cut, never more than there is
  EXPECT_EQ(binary_size_text(0), "0 B");
}

}  // namespace
}  // namespace commsweep
