// What a new user trips on (issue 42): the pure decisions behind its messages, each with the
// exact text the user reads.
#include <gtest/gtest.h>

#include <string>

#include "collectives/collective_test.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "runtime/gpu_sharing.hpp"
#include "sweep/buffer_room.hpp"
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

SweepConfig all_reduce_up_to(std::uint64_t max_bytes) {
  SweepConfig config;
  config.max_bytes = max_bytes;
  return config;
}

// mpirun -np 2 commsweep -e 10T on a host of 23 GiB available: -e 10T sweeps up to 8 TiB (the
// sizes double from 8 B), each of two buffers as large.
TEST(BufferRoom, LargestBuffersOfASweep) {
  const SweepBuffers need = largest_buffers({&all_reduce_test()}, all_reduce_up_to(std::uint64_t{10} << 40), 2);
  EXPECT_EQ(need.message, std::uint64_t{8} << 40);
  EXPECT_EQ(need.send, std::uint64_t{8} << 40);
  EXPECT_EQ(need.recv, std::uint64_t{8} << 40);
  EXPECT_EQ(need.what, "all_reduce float");
  // Warm buffers are each as large as its side: all_gather on 4 ranks sends a quarter of the size
  // column; of two tests the larger pair is taken.
  SweepConfig warm = all_reduce_up_to(std::uint64_t{1} << 20);
  warm.buffers = Buffers::Warm;
  const SweepBuffers gather = largest_buffers({&all_gather_test()}, warm, 4);
  EXPECT_EQ(gather.send, std::uint64_t{256} << 10);
  EXPECT_EQ(gather.recv, std::uint64_t{1} << 20);
  const SweepBuffers both = largest_buffers({&all_gather_test(), &all_reduce_test()}, warm, 4);
  EXPECT_EQ(both.what, "all_reduce float");
  EXPECT_EQ(both.total(), std::uint64_t{2} << 20);
}

TEST(BufferRoom, LargestFittingSizeIsAPowerOfTwo) {
  const SweepBuffers need = largest_buffers({&all_reduce_test()}, all_reduce_up_to(std::uint64_t{10} << 40), 2);
  const std::uint64_t share = (std::uint64_t{23} << 30) / 2;  // 11.5 GiB: 2 bytes of buffer per message byte
  EXPECT_EQ(largest_fitting_size(need, share), std::uint64_t{4} << 30);
  EXPECT_EQ(largest_fitting_size(need, std::uint64_t{23} << 30), std::uint64_t{8} << 30);
  EXPECT_EQ(largest_fitting_size(need, 1), 0u);
  EXPECT_EQ(largest_fitting_size(SweepBuffers{}, share), 0u);
}

TEST(BufferRoom, TheMessageNamesTheFlagTheRankAndWhatFits) {
  const SweepConfig config = all_reduce_up_to(std::uint64_t{10} << 40);
  const SweepBuffers need = largest_buffers({&all_reduce_test()}, config, 2);
  const std::uint64_t share = std::uint64_t{23} << 29;  // 11.5 GiB
  const MemoryRoom room{share, "its share of the host's available memory (23 GiB over 2 ranks)"};
  EXPECT_EQ(buffers_do_not_fit(need, config, {{1, "vm", {share + 4096, room.what}}, {0, "vm", room}}, "-e/--maxbytes"),
            "-e/--maxbytes 10T: all_reduce float up to 8 TiB needs 16 TiB of buffers per rank (send 8 TiB, receive "
            "8 TiB); rank 0 (host vm) has 11.5 GiB, its share of the host's available memory (23 GiB over 2 ranks); "
            "too little also on rank 1 (host vm). Lower -e/--maxbytes (-e 4G fits) or run fewer ranks per host; "
            "nothing was measured");
  // Every short rank is named with its host, 8 besides the shortest, then counted.
  std::vector<ShortRank> many;
  for (int r = 0; r < 12; ++r) many.push_back({r, r < 6 ? "a" : "b", room});
  const std::string said = buffers_do_not_fit(need, config, many, "-e/--maxbytes");
  EXPECT_NE(said.find("; too little also on rank 1 (host a), rank 2 (host a), rank 3 (host a), rank 4 (host a), rank 5 "
                      "(host a), rank 6 (host b), rank 7 (host b), rank 8 (host b) and 3 more. Lower"),
            std::string::npos)
      << said;
  // A suite's key is named as the file names it.
  EXPECT_EQ(buffers_do_not_fit(need, config, {{0, "vm", room}}, "max_bytes"),
            "max_bytes 10T: all_reduce float up to 8 TiB needs 16 TiB of buffers per rank (send 8 TiB, receive 8 TiB); "
            "rank 0 (host vm) has 11.5 GiB, its share of the host's available memory (23 GiB over 2 ranks). Lower "
            "max_bytes (max_bytes 4G fits) or run fewer ranks per host; nothing was measured");
  // Where not even -b fits, no size is offered.
  SweepConfig large_min = config;
  large_min.min_bytes = std::uint64_t{16} << 30;
  const SweepBuffers large = largest_buffers({&all_reduce_test()}, large_min, 2);
  EXPECT_EQ(buffers_do_not_fit(large, large_min, {{0, "vm", room}}, "-e/--maxbytes").find("fits"), std::string::npos);
}

// mpirun -np 4 on 2 GPUs (the nccl backend): local ranks 2 and 3 take GPUs 0 and 1 again, which
// NCCL refuses on every rank ("Duplicate GPU detected"); said once, before NCCL starts.
TEST(RanksSharingGpus, OneLineNamingTheHostAndTheCounts) {
  const std::string a = "0000:18:00.0", b = "0000:2A:00.0";
  EXPECT_EQ(ranks_sharing_gpus({{"vm", a}, {"vm", b}, {"vm", a}, {"vm", b}}),
            "host vm: 4 ranks, 2 GPUs: the nccl backend needs one rank per GPU (mpirun -np 2), or --backend mpi");
  EXPECT_EQ(ranks_sharing_gpus({{"vm", a}, {"vm", a}}),
            "host vm: 2 ranks, 1 GPU: the nccl backend needs one rank per GPU (mpirun -np 1), or --backend mpi");
}

TEST(RanksSharingGpus, OneRankPerGpuPasses) {
  const std::string a = "0000:18:00.0", b = "0000:2A:00.0";
  EXPECT_EQ(ranks_sharing_gpus({{"vm", a}, {"vm", b}}), "");
  EXPECT_EQ(ranks_sharing_gpus({{"vm", a}}), "");
  EXPECT_EQ(ranks_sharing_gpus({}), "");
  // The same bus id on two hosts is two GPUs; fewer ranks than GPUs is fine.
  EXPECT_EQ(ranks_sharing_gpus({{"node1", a}, {"node2", a}, {"node1", b}}), "");
  // Each rank seeing only its own GPU (CUDA_VISIBLE_DEVICES per rank): device 0 of each is another GPU.
  EXPECT_EQ(ranks_sharing_gpus({{"vm", a}, {"vm", b}, {"vm", "0000:3A:00.0"}, {"vm", "0000:5D:00.0"}}), "");
}

TEST(RanksSharingGpus, SeveralHostsGetOneLaunch) {
  const std::string a = "0000:18:00.0", b = "0000:2A:00.0";
  EXPECT_EQ(ranks_sharing_gpus({{"n1", a}, {"n1", b}, {"n1", a}, {"n2", a}, {"n2", b}, {"n2", a}}),
            "host n1: 3 ranks, 2 GPUs; host n2: 3 ranks, 2 GPUs: the nccl backend needs one rank per GPU (mpirun -np 4 "
            "--map-by ppr:2:node), or --backend mpi");
  EXPECT_EQ(ranks_sharing_gpus({{"n1", a}, {"n1", a}, {"n2", a}, {"n2", b}}),
            "host n1: 2 ranks, 1 GPU: the nccl backend needs one rank per GPU (mpirun -np 3, one rank per GPU on each "
            "host), or --backend mpi");
}

}  // namespace
}  // namespace commsweep
