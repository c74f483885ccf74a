// Dispatch and combine as one cooperative kernel each, on NCCL's device API:
//   dispatch: layout (per destination rank and per expert, this rank's tokens in order, in
//             chunks of tokens; where each lands: its fixed places, kernels/ep_lsa.hpp) |
//             each token once per destination rank, straight into its first expert's place
//             in the receiver's expert-grouped buffer, with a header (experts, weights,
//             places), a flag per piece (few tokens: none, the records mark their own
//             arrival); this rank's own tokens straight into all their places. Under the
//             stores, block 0 sends the counts to every peer by the LL all-to-all and places
//             the segments they name, and the receiver's warps wait for each record's flags
//             (or its marks) and copy it to its other experts' places.
//   combine:  weighted partials to the tokens' owners, a flag per piece (few tokens: none,
//             the partials mark their own arrival); under them, the owner's warps wait for
//             each token's partials and sum them in rank order.
// The layout and the stores are separated by a grid-wide sync; the flags (kernels/ep_lsa_sync.cuh)
// replace the LSA barriers between stores and the receiver's work on one node.
// Across nodes (hybrid, kernels/ep_lsa.hpp) the same stages reach the node's peers, and
// records and partials for other nodes go to local buffers that the host exchanges; the
// combine then ends at an LSA barrier and lsa_reduce sums once the host's receives are in.
// Work is split into (item, segment) pieces, a warp each, so that few tokens still spread over
// many warps; pieces for different peers interleave so that no peer's links take all stores.
// Warps of each block start as the receiver's (LsaArgs::schedule.dispatch_helpers / combine_helpers,
// taking records or tokens from a queue in the order they arrive); the others store, then join
// them, so that the receiver's work that the stores leave over spreads on every warp.
// The arithmetic is src/pattern/ep_pattern.hpp's, in the order the host reference uses, so the
// result is bit-exact against it and against the alltoallv path.
// This file is the kernels' composition: which stages run where, on which warps, between which
// syncs. The stages themselves are kernels/ep_lsa_stages.cuh, which a kernel variant includes too.
#include <algorithm>

#include <cooperative_groups.h>

#include "ep_lsa.hpp"

// The nccl.h included must be the one CMake found (cmake/FindNCCL.cmake, NCCL_ROOT): the CUDA
// toolkit's include folder holds another NCCL's, which may come first on the include path.
#if defined(COMMSWEEP_NCCL_FOUND_VERSION_CODE) && NCCL_VERSION_CODE != COMMSWEEP_NCCL_FOUND_VERSION_CODE
#error "nccl.h on the include path is not the NCCL that CMake found (NCCL_INCLUDE_DIR): another NCCL's headers come first"
#endif

#include "ep_lsa_stages.cuh"

namespace commsweep::ep::kernels {

#if COMMSWEEP_NCCL_DEVICE_API
namespace {

using namespace lsa_stages;
namespace cg = cooperative_groups;

// Blocks an SM keeps of either cooperative kernel (64 registers a thread at most): as before the
// flags, 2 x 512 threads.
constexpr int kBlocksPerSm = 2;

template <int V>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) dispatch_kernel(ncclDevComm comm, LsaArgs a) {
  __shared__ typename Scan::TempStorage temp;
  __shared__ LayoutShared layout;
  __shared__ unsigned* flag_slots[kWarps][kLsaFlagBatchMax];
  cg::grid_group grid = cg::this_grid();
  clock_start(a);
  const unsigned epoch = launch_epoch(a, kDispatchKernel);
  const bool one_node = a.nodes.gathered == nullptr;
  // One node: the layout's chunks, then block 0 sums this rank's row and places its tokens while
  // the other blocks offset their chunks. With a single chunk (up to kLsaLayoutChunk tokens)
  // block 0 has it. Across nodes lsa_layout ran before the gather, and block 0 reads the
  // gathered counts here.
  const int chunks = one_node ? layout_chunks(a) : 0;
  count_chunks(a, chunks, layout);
  if (chunks > 1) grid.sync();
  if (blockIdx.x == 0) {
    const int n = a.shape.nranks;
    if (one_node) {
      sum_chunks(a);
      local_places(a, &layout.before[0][0], temp);
    } else {
      counts_stage(CountMatrices{a.nodes.gathered, n + a.shape.experts, a.nodes.gathered + n, n + a.shape.experts}, a);
      announce_counts(a, epoch);
    }
  }
  offset_chunks(a, chunks, layout);
  clock_mark(a, 0);
  grid.sync();
  // One node: block 0 exchanges the counts while the others store (with a single block, it
  // stores after them).
  const int first_block = one_node && gridDim.x > 1 ? 1 : 0;
  if (one_node && blockIdx.x == 0) {
    counts_stage(exchange_counts(comm, a), a);
    announce_counts(a, epoch);
  }
  const int helpers = a.schedule.dispatch_helpers;
  if (a.schedule.dispatch_marked && static_cast<int>(blockIdx.x) >= first_block) {
    // The receiver's warps set the previous launch's marks back before they wait for records
    // (every warp, where there are none); the first records land microseconds after the sync.
    const int unsetting = helpers > 0 ? helpers : kWarps;
    if (static_cast<int>(threadIdx.x) / 32 < unsetting) {
      unset_marked_records(a, epoch, Warp{static_cast<int>(threadIdx.x % 32),
                                          static_cast<int>((blockIdx.x - first_block) * unsetting + threadIdx.x / 32),
                                          static_cast<int>((gridDim.x - first_block) * unsetting)});
    }
  }
  if (static_cast<int>(blockIdx.x) >= first_block && static_cast<int>(threadIdx.x) / 32 >= helpers) {
    const Warp w = this_warp(helpers, first_block);
    FlagBatch flags{flag_slots[threadIdx.x / 32], a.schedule.flag_batch, epoch};
    send_stage<V>(a, flags, w);
    clock_mark_warp(a, 1, w.lane);
  }
  duplicate_stage<V>(a, epoch, static_cast<int>(threadIdx.x % 32));
  finish(a, kDispatchKernel);
}

__global__ void __launch_bounds__(kThreads, kBlocksPerSm) combine_kernel(ncclDevComm comm, LsaArgs a) {
  __shared__ unsigned* flag_slots[kWarps][kLsaFlagBatchMax];
  clock_start(a);
  const unsigned epoch = launch_epoch(a, kCombineKernel);
  FlagBatch flags{flag_slots[threadIdx.x / 32], a.schedule.flag_batch, epoch};
  // Elements a piece (and its flag): every rank launches as many blocks, so every rank picks the same.
  const int helpers = a.nodes.gathered != nullptr ? 0 : a.schedule.combine_helpers;
  const std::uint32_t piece = lsa_combine_piece(static_cast<long long>(a.shape.nranks) * a.shape.tokens, a.shape.f.hidden,
                                                lsa_storing_warps(static_cast<int>(gridDim.x), helpers));
  if (a.nodes.gathered != nullptr) {
    // Across nodes: lsa_reduce runs once the partials from other nodes are in; the barrier, not
    // flags, orders the node's partials before it.
    partials_stage(a, flags, this_warp(), piece, false);
    clock_mark(a, 0);
    lsa_barrier(comm, a.schedule.barrier_base + blockIdx.x);
    finish(a, kCombineKernel);
    return;
  }
  const bool marked = lsa_combine_marked(piece, true);
  if (static_cast<int>(threadIdx.x) / 32 >= helpers) {
    const Warp w = this_warp(helpers);
    partials_stage(a, flags, w, piece, !marked);
    clock_mark_warp(a, 0, w.lane);
  }
  reduce_stage(a, epoch, static_cast<int>(threadIdx.x % 32), piece, marked);
  finish(a, kCombineKernel);
}

__global__ void __launch_bounds__(kThreads) layout_kernel(LsaArgs a) {
  __shared__ LayoutShared layout;
  count_chunks(a, layout_chunks(a), layout);
}
__global__ void __launch_bounds__(kThreads) layout_offsets_kernel(LsaArgs a) {
  __shared__ typename Scan::TempStorage temp;
  __shared__ LayoutShared layout;
  if (blockIdx.x == 0) {
    sum_chunks(a);
    local_places(a, &layout.before[0][0], temp);
  }
  offset_chunks(a, layout_chunks(a), layout);
}
__global__ void __launch_bounds__(kThreads) unpack_remote_kernel(LsaArgs a) { unpack_remote_stage(a); }
// Across nodes, after the host's receives: each (token, piece of the larger size) a warp; no
// flags to wait for.
__global__ void __launch_bounds__(kThreads) reduce_kernel(LsaArgs a) {
  const Warp w = this_warp();
  const std::uint32_t piece = kLsaCombinePieceMax, nseg = lsa_segments(a.shape.f.hidden, piece);
  const long long pieces = static_cast<long long>(a.shape.tokens) * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    reduce_piece(a, static_cast<int>(p / nseg), static_cast<std::uint32_t>(p % nseg), piece, nullptr, 0, false, w.lane);
  }
}

}  // namespace

int lsa_max_blocks(int device) {
  int sms = 0, per_sm_dispatch4 = 0, per_sm_dispatch5 = 0, per_sm_combine = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_dispatch4, dispatch_kernel<4>, kThreads, 0) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_dispatch5, dispatch_kernel<5>, kThreads, 0) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_combine, combine_kernel, kThreads, 0) != cudaSuccess) {
    return 0;
  }
  return sms * std::min({per_sm_dispatch4, per_sm_dispatch5, per_sm_combine});
}

// Dispatch: one per block; combine: one per block, after those.
int lsa_barrier_count(int blocks) { return 2 * blocks; }

cudaError_t lsa_dispatch(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream) {
  if (a.shape.segment_bytes == kPieceBytes<4>) return launch_cooperative(dispatch_kernel<4>, comm, a, blocks, stream);
  if (a.shape.segment_bytes == kPieceBytes<5>) return launch_cooperative(dispatch_kernel<5>, comm, a, blocks, stream);
  return cudaErrorInvalidValue;  // not what lsa_segment_bytes picks
}

cudaError_t lsa_combine(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream) {
  return launch_cooperative(combine_kernel, comm, a, blocks, stream);
}

cudaError_t lsa_layout(const LsaArgs& a, int blocks, cudaStream_t stream) {
  layout_kernel<<<blocks, kThreads, 0, stream>>>(a);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  layout_offsets_kernel<<<blocks, kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t lsa_unpack_remote(const LsaArgs& a, int blocks, cudaStream_t stream) {
  unpack_remote_kernel<<<blocks, kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t lsa_reduce(const LsaArgs& a, int blocks, cudaStream_t stream) {
  reduce_kernel<<<blocks, kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

#else  // no device API in this NCCL

int lsa_max_blocks(int) { return 0; }
int lsa_barrier_count(int) { return 0; }
cudaError_t lsa_dispatch(const ncclDevComm&, const LsaArgs&, int, cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t lsa_combine(const ncclDevComm&, const LsaArgs&, int, cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t lsa_layout(const LsaArgs&, int, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t lsa_unpack_remote(const LsaArgs&, int, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t lsa_reduce(const LsaArgs&, int, cudaStream_t) { return cudaErrorNotSupported; }

#endif

const LsaKernels& lsa_kernels() {
  static const LsaKernels kernels{lsa_dispatch, lsa_combine, lsa_max_blocks};
  return kernels;
}

}  // namespace commsweep::ep::kernels
