// The lsa kernels' device stages (kernels/ep_lsa.cu composes them into its kernels; the order,
// the flags and the memory orders between them are described there and in ep_lsa_sync.cuh):
//   the layout (count_chunks, offset_chunks, sum_chunks, local_places),
//   the counts (exchange_counts on one node, counts_stage, announce_counts),
//   the dispatch's stores and the receiver's copies (send_stage, duplicate_stage; a marked
//   dispatch: copy_marked_piece, unset_marked_records),
//   the combine's partials and reduction (partials_stage, reduce_piece, reduce_stage),
//   across nodes the unpacking of other nodes' records (unpack_remote_stage),
// and the building blocks they share (Warp, Piece, Header, the window's parts).
// A kernel variant of lsa (docs/contributing.md) is a .cu that includes this header and writes
// its own __global__ kernels from these stages, replacing the ones it changes; every variant
// compiles its own copy (each .cu is compiled alone, no device linking), so the code a stage
// generates is the same as where it was written inside ep_lsa.cu.
// Every stage takes the kernel's LsaArgs (kernels/ep_lsa.hpp) and expects the launch shape
// those kernels use: kLsaThreads threads a block, cooperative launches (launch_cooperative).
#pragma once

#include <cub/block/block_scan.cuh>

#include "ep_lsa.hpp"
#include "nccl_device_api.hpp"
#include "pattern/ep_pattern.hpp"

#if COMMSWEEP_NCCL_DEVICE_API
#include "ep_lsa_sync.cuh"

namespace commsweep::ep::kernels::lsa_stages {

inline constexpr int kThreads = kLsaThreads;
inline constexpr int kWarps = kThreads / 32;
// A dispatch piece is V 16-byte vectors of every lane: V = 4 (2048 bytes) or 5 (2560), a
// template argument of the dispatch kernel (LsaArgs::shape.segment_bytes picks it) so that each size
// gets its own register allocation (ptxas at 64 registers, db8b4f2: the 4-vector kernel spills
// 40 bytes, the 5-vector one 20).
template <int V>
inline constexpr std::uint32_t kPieceBytes = V * 16 * 32;
static_assert(kPieceBytes<4> == kLsaSegmentBytesMin && kPieceBytes<5> == kLsaSegmentBytesMax,
              "the two pieces are lsa_segment_bytes' two sizes");
// Vectors a lane loads before it sums them (top-k slots, or ranks): enough bytes in flight per
// SM to cover memory latency (32 warps x 4 x 512 B = 64 KiB; HBM3 at 3.35 TB/s over 132 SMs
// needs about 25 KiB an SM for 1 us of latency), few enough registers for 2 blocks an SM
// (8 spilled 500 bytes a thread).
inline constexpr int kLoadsInFlight = 4;
using Scan = cub::BlockScan<int, kThreads>;

__device__ inline char* local_part(const LsaArgs& a, std::size_t offset) {
  return static_cast<char*>(ncclGetLocalPointer(a.window.handle, offset));
}
__device__ inline char* peer_part(const LsaArgs& a, std::size_t offset, int peer) {
  return static_cast<char*>(ncclGetPeerPointer(a.window.handle, offset, peer));
}

// Every block's barrier with the same block on the other ranks: what they stored before it is
// visible here after it (release on arrival, acquire on waiting).
__device__ inline void lsa_barrier(const ncclDevComm& comm, int index) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), comm, ncclTeamLsa(comm), comm.lsaBarrier,
                                         static_cast<uint32_t>(index));
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

// Warps of a group (the storing warps, or all), numbered across the grid: each block's warps
// from `first`, in the blocks from `first_block`.
struct Warp {
  int lane, id, count;
};
__device__ inline Warp this_warp(int first = 0, int first_block = 0) {
  const int per_block = kWarps - first;
  return {static_cast<int>(threadIdx.x % 32),
          static_cast<int>((blockIdx.x - first_block) * per_block + threadIdx.x / 32 - first),
          static_cast<int>((gridDim.x - first_block) * per_block)};
}

// A warp copies bytes [begin, end) of a payload (multiples of 16) with 16-byte accesses, four
// in flight per lane.
__device__ inline void warp_copy16(char* dst, const char* src, std::uint32_t begin, std::uint32_t end, int lane) {
  const auto* s = reinterpret_cast<const uint4*>(src + begin);
  auto* d = reinterpret_cast<uint4*>(dst + begin);
  const std::uint32_t n = (end - begin) / 16;
  std::uint32_t i = lane;
  for (; i + 96 < n; i += 128) {
    const uint4 v0 = s[i], v1 = s[i + 32], v2 = s[i + 64], v3 = s[i + 96];
    d[i] = v0;
    d[i + 32] = v1;
    d[i + 64] = v2;
    d[i + 96] = v3;
  }
  for (; i < n; i += 32) d[i] = s[i];
}

// One piece (bytes [begin, end) of a payload, at most kLsaSegmentBytesMax) in the warp's registers:
// loaded once, stored to as many places as it goes to. `Marked`: a marked record's piece as it
// lands, each lane's vectors loaded at once (relaxed, not from L1), then polled until no word
// of them is all ones (kernels/ep_lsa_sync.cuh).
template <int V>
struct Piece {
  uint4 v[V];
};
template <int V, bool Marked = false>
__device__ inline Piece<V> load_piece(const char* src, std::uint32_t begin, std::uint32_t end, int lane) {
  Piece<V> piece;
  const auto* s = reinterpret_cast<const uint4*>(src + begin);
  const int n = static_cast<int>((end - begin) / 16);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    if (lane + 32 * k < n) piece.v[k] = Marked ? load_relaxed(s + lane + 32 * k) : s[lane + 32 * k];
  }
  if constexpr (Marked) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if (lane + 32 * k < n) piece.v[k] = until_landed(s + lane + 32 * k, piece.v[k], lsa_word_landed);
    }
  }
  return piece;
}
template <int V>
__device__ inline void store_piece(char* dst, const Piece<V>& piece, std::uint32_t begin, std::uint32_t end, int lane) {
  auto* d = reinterpret_cast<uint4*>(dst + begin);
  const int n = static_cast<int>((end - begin) / 16);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    if (lane + 32 * k < n) d[lane + 32 * k] = piece.v[k];
  }
}

// A record's header in the receiver's window: top-k experts, weights, and each slot's place in
// the receiver's expert-grouped buffer (-1: the expert is not there).
struct Header {
  std::int32_t* idx;
  float* weight;
  std::int32_t* place;
};
__device__ inline Header header_at(char* base, std::size_t record, const LsaArgs& a) {
  char* h = base + record * a.shape.header_bytes;
  return {reinterpret_cast<std::int32_t*>(h), reinterpret_cast<float*>(h + 4 * a.shape.f.topk),
          reinterpret_cast<std::int32_t*>(h + 8 * a.shape.f.topk)};
}

// Stage 1: the layout, in chunks of kLsaLayoutChunk tokens, each chunk a block's: four lanes a
// token, each with every fourth of its top-k indices. Columns are the destination ranks, then
// the experts. count_chunk: per column, the chunk's tokens to it and each token's rank among
// them in token order (each warp's tokens as bits OR'd in shared memory, each column's running
// sum over the warps, then the rank: the earlier warps' tokens plus the warp's earlier ones).
// Once every chunk is counted, offset_chunk adds the tokens in earlier chunks, and block 0's
// sum_chunks adds the chunks up to this rank's row (send_counts, then expert_sends). The
// indices are read once, in batches, and every output written once (offset_chunk: read and
// written once): a chunk costs a few memory round trips, not one per index or column.
inline constexpr int kLayoutColumns = 288;  // columns a pass: 4 ranks and 256 experts take one
inline constexpr int kLanesPerToken = 4;  // a warp holds 8 tokens: a bit each in its masks
inline constexpr int kTopkBatch = 8;  // top-k indices a lane holds at once (top-k up to 32 in one batch)
static_assert(kLsaLayoutChunk * kLanesPerToken == kThreads, "a layout chunk is four lanes a token");
struct LayoutShared {
  unsigned mask[kWarps][kLayoutColumns];  // per warp and column: its tokens that go there, a bit each
  int before[kWarps][kLayoutColumns];     // per warp and column: the earlier warps' tokens there
};
static_assert(kWarps * kLayoutColumns >= kLsaRanksMax, "local_places' scratch is LayoutShared::before");

__device__ inline int layout_chunks(const LsaArgs& a) { return lsa_layout_chunks(a.shape.tokens); }

// A lane's share of a chunk: its token, which fourth of the token's indices it holds, its
// token's bit in the warp's masks.
struct LayoutLane {
  int t, q, warp;
  unsigned bit;
  bool live;
};
__device__ inline LayoutLane layout_lane(const LsaArgs& a, int chunk) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int t = chunk * kLsaLayoutChunk + static_cast<int>(threadIdx.x) / kLanesPerToken;
  return {t, lane % kLanesPerToken, static_cast<int>(threadIdx.x / 32), 1u << (lane / kLanesPerToken), t < a.shape.tokens};
}

// The lane's k-th index of the batch from j0: j0 + q, j0 + q + 4, ...
__device__ inline int topk_index(const LayoutLane& l, int j0, int k) { return j0 + l.q + kLanesPerToken * k; }
inline constexpr int kTopkStep = kTopkBatch * kLanesPerToken;  // indices a batch covers over the token's lanes

// The lane's top-k indices of the batch from j0 (kTopkBatch of them), -1 past top-k.
struct TopkBatch {
  int e[kTopkBatch];
};
__device__ inline TopkBatch load_topk(const LsaArgs& a, const LayoutLane& l, int j0) {
  const int topk = static_cast<int>(a.shape.f.topk);
  const std::int32_t* idx = a.input.idx + static_cast<std::size_t>(l.t) * topk;
  TopkBatch b;
#pragma unroll
  for (int k = 0; k < kTopkBatch; ++k) {
    const int j = topk_index(l, j0, k);
    b.e[k] = j < topk ? idx[j] : -1;
  }
  return b;
}

__device__ inline void count_chunk(const LsaArgs& a, int chunk, LayoutShared& sh) {
  const int n = a.shape.nranks, topk = static_cast<int>(a.shape.f.topk), per_rank = a.shape.experts / n, columns = n + a.shape.experts;
  const LayoutLane l = layout_lane(a, chunk);
  const unsigned below = l.bit - 1u;
  const bool single = layout_chunks(a) == 1;  // the chunk's counts are the row
  for (int c0 = 0; c0 < columns; c0 += kLayoutColumns) {
    const int width = min(kLayoutColumns, columns - c0);
    for (int i = threadIdx.x; i < kWarps * kLayoutColumns; i += kThreads) (&sh.mask[0][0])[i] = 0;
    __syncthreads();
    if (l.live) {
      for (int j0 = 0; j0 < topk; j0 += kTopkStep) {
        const TopkBatch b = load_topk(a, l, j0);
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) {
          if (b.e[k] < 0) continue;
          const int d = b.e[k] / per_rank - c0, x = n + b.e[k] - c0;
          if (d >= 0 && d < width) atomicOr(&sh.mask[l.warp][d], l.bit);
          if (x >= 0 && x < width) atomicOr(&sh.mask[l.warp][x], l.bit);
        }
      }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < width; k += kThreads) {
      int running = 0;
      for (int w = 0; w < kWarps; ++w) {
        sh.before[w][k] = running;
        running += __popc(sh.mask[w][k]);
      }
      a.layout.chunk_counts[static_cast<std::size_t>(chunk) * columns + c0 + k] = running;
      if (single) a.layout.send_counts[c0 + k] = running;
    }
    __syncthreads();
    if (l.live) {
      const auto rank_in = [&](int column) {
        return sh.before[l.warp][column] + __popc(sh.mask[l.warp][column] & below);
      };
      for (int d = c0 + l.q; d < min(c0 + width, n); d += kLanesPerToken) {
        a.layout.slot[static_cast<std::size_t>(l.t) * n + d] = sh.mask[l.warp][d - c0] & l.bit ? rank_in(d - c0) : -1;
      }
      for (int j0 = 0; j0 < topk; j0 += kTopkStep) {
        const TopkBatch b = load_topk(a, l, j0);
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) {
          const int x = n + b.e[k] - c0;
          if (b.e[k] >= 0 && x >= 0 && x < width) {
            a.layout.rank_in_expert[static_cast<std::size_t>(l.t) * topk + topk_index(l, j0, k)] = rank_in(x);
          }
        }
      }
    }
    __syncthreads();
  }
}

// After every chunk's count_chunk (a grid-wide sync, or a kernel boundary): chunk `chunk` > 0's
// ranks plus the tokens to each column in the chunks before it.
__device__ inline void offset_chunk(const LsaArgs& a, int chunk, LayoutShared& sh) {
  const int n = a.shape.nranks, topk = static_cast<int>(a.shape.f.topk), columns = n + a.shape.experts;
  const LayoutLane l = layout_lane(a, chunk);
  int* before = sh.before[0];
  for (int c0 = 0; c0 < columns; c0 += kLayoutColumns) {
    const int width = min(kLayoutColumns, columns - c0);
    for (int k = threadIdx.x; k < width; k += kThreads) {
      int sum = 0;
#pragma unroll 16
      for (int c = 0; c < chunk; ++c) sum += a.layout.chunk_counts[static_cast<std::size_t>(c) * columns + c0 + k];
      before[k] = sum;
    }
    __syncthreads();
    if (l.live) {
      int* slot = a.layout.slot + static_cast<std::size_t>(l.t) * n;
      const int end = min(c0 + width, n);
      for (int d0 = c0 + l.q; d0 < end; d0 += kLanesPerToken * kTopkBatch) {
        int v[kTopkBatch];
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) {
          const int d = d0 + kLanesPerToken * k;
          v[k] = d < end ? slot[d] : -1;
        }
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) {
          const int d = d0 + kLanesPerToken * k;
          if (v[k] >= 0) slot[d] = v[k] + before[d - c0];
        }
      }
      int* in_expert = a.layout.rank_in_expert + static_cast<std::size_t>(l.t) * topk;
      for (int j0 = 0; j0 < topk; j0 += kTopkStep) {
        const TopkBatch b = load_topk(a, l, j0);
        int v[kTopkBatch];
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) v[k] = b.e[k] >= 0 ? in_expert[topk_index(l, j0, k)] : 0;
#pragma unroll
        for (int k = 0; k < kTopkBatch; ++k) {
          const int x = n + b.e[k] - c0;
          if (b.e[k] >= 0 && x >= 0 && x < width) in_expert[topk_index(l, j0, k)] = v[k] + before[x];
        }
      }
    }
    __syncthreads();
  }
}

// Block 0, after every chunk's count_chunk: this rank's row (send_counts, then expert_sends);
// with a single chunk count_chunk wrote it.
__device__ inline void sum_chunks(const LsaArgs& a) {
  const int columns = a.shape.nranks + a.shape.experts, chunks = layout_chunks(a);
  if (chunks == 1) return;
  for (int k = threadIdx.x; k < columns; k += kThreads) {
    int sum = 0;
#pragma unroll 16  // 16 loads in flight, not one round trip a chunk
    for (int c = 0; c < chunks; ++c) sum += a.layout.chunk_counts[static_cast<std::size_t>(c) * columns + k];
    a.layout.send_counts[k] = sum;
  }
  __syncthreads();
}

// Block 0, once this rank's row is summed: where its tokens to each expert land on the expert's
// rank (expert_start): its region there (rank x entries_room), after its tokens to that rank's
// lower experts. Nothing here waits for another rank. Experts are scanned kThreads at a time,
// in order, so a rank's first expert is scanned no later than its others: `scratch` (shared,
// kLsaRanksMax) holds each rank's first expert's running sum once its pass has reached it.
__device__ inline void local_places(const LsaArgs& a, int* scratch, typename Scan::TempStorage& temp) {
  const int E = a.shape.experts, per_rank = E / a.shape.nranks, region = a.shape.rank * a.shape.entries_room;
  int running = 0;  // this rank's tokens to the experts of earlier passes
  for (int base = 0; base < E; base += kThreads) {
    const int e = base + threadIdx.x;
    int prefix = 0, aggregate = 0;
    Scan(temp).ExclusiveSum(e < E ? a.layout.expert_sends[e] : 0, prefix, aggregate);
    if (e < E && e % per_rank == 0) scratch[e / per_rank] = running + prefix;
    __syncthreads();
    if (e < E) a.layout.expert_start[e] = running + prefix + region - scratch[e / per_rank];
    running += aggregate;
    __syncthreads();  // the scan's storage and `scratch` before the next pass
  }
}

// The chunks of this block (block b: chunks b, b + blocks, ...), counted; then, once every
// chunk is counted, offset (all but the first).
__device__ inline void count_chunks(const LsaArgs& a, int chunks, LayoutShared& sh) {
  for (int c = blockIdx.x; c < chunks; c += gridDim.x) count_chunk(a, c, sh);
}
__device__ inline void offset_chunks(const LsaArgs& a, int chunks, LayoutShared& sh) {
  for (int c = blockIdx.x; c < chunks; c += gridDim.x) {
    if (c > 0) offset_chunk(a, c, sh);
  }
}

// Every rank's counts: [s][d] records rank s sends to rank d, [s][e] its tokens to expert e.
struct CountMatrices {
  const int* counts;
  int counts_stride;
  const int* per_expert;
  int per_expert_stride;
  __device__ int sends(int s, int d) const { return counts[s * counts_stride + d]; }
  __device__ int to_expert(int s, int e) const { return per_expert[s * per_expert_stride + e]; }
};

// Stage 2a (block 0, one node): this rank's row of counts (records per rank, then tokens per
// expert: send_counts and expert_sends, contiguous) to every rank by NCCL's LL all-to-all,
// two counts an 8-byte element, each with its epoch flag (no barrier: a receiver waits on the
// flags of the elements it reads). Rank s's element k lands in slot s x M + k everywhere; the
// rows received fill this rank's matrices.
__device__ inline CountMatrices exchange_counts(const ncclDevComm& comm, const LsaArgs& a) {
  const int n = a.shape.nranks, E = a.shape.experts, row = n + E, M = lsa_counts_elements(n, E) / n;
  ncclLLA2AHandle handle{a.signals.counts_a2a_buffer, a.signals.counts_a2a_slots};
  ncclLLA2ASession<ncclCoopCta> session(ncclCoopCta(), comm, ncclTeamLsa(comm), handle, 0, n * M);
  for (int i = threadIdx.x; i < n * M; i += blockDim.x) {
    const int peer = i / M, k = i % M;
    const int2 pair{a.layout.send_counts[2 * k], 2 * k + 1 < row ? a.layout.send_counts[2 * k + 1] : 0};
    session.send(peer, a.shape.rank * M + k, pair);
  }
  auto* counts = reinterpret_cast<int*>(local_part(a, a.window.counts_offset));
  auto* per_expert = reinterpret_cast<int*>(local_part(a, a.window.expert_counts_offset));
  for (int i = threadIdx.x; i < n * M; i += blockDim.x) {
    const int source = i / M, k = i % M;
    const int2 pair = session.template recv<int2>(i);
    const int values[2] = {pair.x, pair.y};
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * k + h;
      if (j < n) counts[source * n + j] = values[h];
      else if (j < row) per_expert[source * E + j - n] = values[h];
    }
  }
  session.endEpoch(ncclCoopCta());
  __syncthreads();
  return {counts, n, per_expert, E};
}

// Block 0, from every rank's counts: what this rank receives (counts_copy) and, per local
// expert and source, its segment: entries, and where they start in the source's region (after
// its entries to lower local experts); across nodes, where each other node's records start
// among those the host exchanges. The places of this rank's own tokens are local_places'.
__device__ inline void counts_stage(const CountMatrices m, const LsaArgs& a) {
  const int n = a.shape.nranks, me = a.shape.rank, L = a.shape.local_experts;
  for (int i = threadIdx.x; i < n * n; i += blockDim.x) a.counts.counts_copy[i] = m.sends(i / n, i % n);
  for (int j = threadIdx.x; j < n; j += blockDim.x) {  // Starts (kernels/ep_lsa.hpp)
    int remote_from = 0, remote_to = 0;
    for (int k = 0; k < j; ++k) {
      if (a.nodes.lsa_peer[k] < 0) {
        remote_from += m.sends(k, me);
        remote_to += m.sends(me, k);
      }
    }
    a.counts.starts[j] = remote_from;
    a.counts.starts[n + j] = remote_to;
  }
  // A thread a segment (l, s): its loads are independent, not a running sum's chain.
  for (int k = threadIdx.x; k < L * n; k += blockDim.x) {
    const int l = k / n, s = k % n;
    int at = s * a.shape.entries_room;
#pragma unroll 8
    for (int lower = 0; lower < l; ++lower) at += m.to_expert(s, a.shape.first_expert + lower);
    a.counts.expert_counts[k] = m.to_expert(s, a.shape.first_expert + l);
    a.counts.expert_base[k] = at;
  }
}

// After counts_stage: its results to every block of this rank (LsaSync kLsaCountsIn).
__device__ inline void announce_counts(const LsaArgs& a, unsigned epoch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&a.signals.sync[kLsaCountsIn]), "r"(epoch) : "memory");
  }
}

// The running sums of the counts (LsaArgs::counts.starts), by what they locate.
struct Starts {
  const int* p;
  int n;
  __device__ int remote_records_from(int j) const { return p[j]; }
  __device__ int remote_records_to(int j) const { return p[n + j]; }
};
__device__ inline Starts starts_of(const LsaArgs& a) { return {a.counts.starts, a.shape.nranks}; }
// The fixed place s x tokens + i of what rank s sends a rank: its i-th record there (header,
// flags), or, in the combine, the partial of that rank's i-th token among those sent to s.
__device__ inline std::size_t record_place(const LsaArgs& a, int s, int i) {
  return static_cast<std::size_t>(s) * a.shape.tokens + i;
}
// A record's header, written by the warp of its segment 0: top-k experts, weights, and each
// slot's place on destination d (kLsaNoPlace: the expert is not on d).
__device__ inline void write_header(const Header& h, const LsaArgs& a, int t, int d, int lane) {
  const int topk = static_cast<int>(a.shape.f.topk), per_rank = a.shape.experts / a.shape.nranks;
  for (int j = lane; j < topk; j += 32) {
    const std::int32_t e = a.input.idx[static_cast<std::size_t>(t) * topk + j];
    h.idx[j] = e;
    h.weight[j] = a.input.weights[static_cast<std::size_t>(t) * topk + j];
    h.place[j] = e / per_rank == d ? a.layout.expert_start[e] + a.layout.rank_in_expert[static_cast<std::size_t>(t) * topk + j]
                                   : kLsaNoPlace;
  }
}

// Flag of piece g of record r (or of partial r) in a window part of flags.
__device__ inline unsigned* flag_at(char* flags, std::size_t r, std::uint32_t g, std::uint32_t nseg) {
  return reinterpret_cast<unsigned*>(flags) + r * nseg + g;
}

// Stage 3: each (token, destination, payload segment) a storing warp, destinations fastest and
// starting from this rank. A peer's copy goes to the token's first expert's place there, then
// the piece's flag (none where the dispatch is marked); this rank's own copy to every local
// expert's place (nothing waits for it); a copy for another node's rank into the packed record
// the host sends. Segment 0's warp also writes the header.
template <int V>
__device__ inline void send_stage(const LsaArgs& a, FlagBatch& flags, const Warp w) {
  const int n = a.shape.nranks, topk = static_cast<int>(a.shape.f.topk), per_rank = a.shape.experts / n;
  const std::uint32_t stride = a.shape.f.payload_stride, nseg = lsa_segments(stride, kPieceBytes<V>);
  const long long pieces = static_cast<long long>(a.shape.tokens) * n * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int d = static_cast<int>((p % n + a.shape.rank) % n);
    const std::uint32_t g = static_cast<std::uint32_t>(p / n % nseg);
    const int t = static_cast<int>(p / n / nseg);
    const int s = a.layout.slot[static_cast<std::size_t>(t) * n + d];
    if (s < 0) continue;
    const std::uint32_t begin = g * kPieceBytes<V>, end = min(begin + kPieceBytes<V>, stride);
    const Piece<V> piece = load_piece<V>(reinterpret_cast<const char*>(a.input.payload) + static_cast<std::size_t>(t) * stride, begin, end, w.lane);
    const int peer = a.nodes.lsa_peer[d];
    if (peer < 0) {  // another node's rank: header, then payload, for the host to send
      char* packed = reinterpret_cast<char*>(a.nodes.remote_send) +
                     static_cast<std::size_t>(starts_of(a).remote_records_to(d) + s) * lsa_remote_record_bytes(a);
      store_piece(packed + a.shape.header_bytes, piece, begin, end, w.lane);
      if (g == 0) write_header(header_at(packed, 0, a), a, t, d, w.lane);
      continue;
    }
    char* grouped = peer_part(a, lsa_grouped_at(a, flags.epoch), peer);
    const std::int32_t* idx = a.input.idx + static_cast<std::size_t>(t) * topk;
    const int* in_expert = a.layout.rank_in_expert + static_cast<std::size_t>(t) * topk;
    // Lane j looks up top-k slot j0 + j's place on d (-1: not there), all lanes at once; a peer
    // gets the first place only (it copies the piece to the others).
    bool placed = false;
    for (int j0 = 0; j0 < topk && !placed; j0 += 32) {
      const int j = j0 + w.lane;
      int place = -1;
      if (j < topk) {
        const int e = idx[j];
        if (e / per_rank == d) place = a.layout.expert_start[e] + in_expert[j];
      }
      unsigned on_d = __ballot_sync(0xffffffffu, place >= 0);
      if (d != a.shape.rank && on_d != 0) {
        on_d &= 0u - on_d;
        placed = true;
      }
      for (; on_d != 0; on_d &= on_d - 1) {
        const int at = __shfl_sync(0xffffffffu, place, __ffs(on_d) - 1);
        store_piece(grouped + static_cast<std::size_t>(at) * stride, piece, begin, end, w.lane);
      }
    }
    const std::size_t record = record_place(a, a.shape.rank, s);
    if (g == 0) write_header(header_at(peer_part(a, lsa_headers_at(a, flags.epoch), peer), record, a), a, t, d, w.lane);
    if (d != a.shape.rank && !a.schedule.dispatch_marked) {
      publish(flags, flag_at(peer_part(a, a.window.flags_offset, peer), record, g, nseg), w.lane);
    }
  }
  flush(flags, w.lane);
}

// A marked dispatch's piece g of record r from a node peer, as it lands: the record's header
// (its words polled a lane a word), then the piece at the record's first place, copied on to
// its further places. Every piece is polled, also where there is no further place, so that the
// kernel's end means every record has landed (the experts read them next).
// Its two loops over the places are the flagged path's (duplicate_stage), with relaxed loads.
// Shared through helpers (and with unset_marked_records), the dispatch kernels spilled 80 and 56
// bytes instead of 68 and 52, and the fp8 dispatch took 0.6 to 0.8 us longer from 256 to 4096
// tokens on 4 x H200 (call 35, results/figures-log.md, version 12), so each path keeps its own.
template <int V>
__device__ inline void copy_marked_piece(const LsaArgs& a, char* headers, char* grouped, std::size_t r, std::uint32_t g,
                                  int lane) {
  const int topk = static_cast<int>(a.shape.f.topk);
  const auto* words = reinterpret_cast<const std::uint32_t*>(headers + r * a.shape.header_bytes);
  for (int k = lane; k < 3 * topk; k += 32) until_word_landed(words + k);
  __syncwarp();
  const std::uint32_t* places = words + 2 * topk;
  int first = -1;
  bool copies = false;
  for (int j0 = 0; j0 < topk; j0 += 32) {
    const int place = j0 + lane < topk ? static_cast<int>(load_relaxed_u32(places + j0 + lane)) : kLsaNoPlace;
    unsigned here = __ballot_sync(0xffffffffu, place >= 0);
    if (here != 0 && first < 0) {
      first = __shfl_sync(0xffffffffu, place, __ffs(here) - 1);
      here &= here - 1;
    }
    copies = copies || here != 0;
  }
  if (first < 0) return;  // a record always has a place here; never a wild read if not
  const std::uint32_t stride = a.shape.f.payload_stride;
  const std::uint32_t begin = g * kPieceBytes<V>, end = min(begin + kPieceBytes<V>, stride);
  const Piece<V> piece = load_piece<V, true>(grouped + static_cast<std::size_t>(first) * stride, begin, end, lane);
  if (!copies) return;
  for (int j0 = 0; j0 < topk; j0 += 32) {
    const int place = j0 + lane < topk ? static_cast<int>(load_relaxed_u32(places + j0 + lane)) : kLsaNoPlace;
    unsigned further = __ballot_sync(0xffffffffu, place >= 0 && place != first);
    for (; further != 0; further &= further - 1) {
      const int at = __shfl_sync(0xffffffffu, place, __ffs(further) - 1);
      store_piece(grouped + static_cast<std::size_t>(at) * stride, piece, begin, end, lane);
    }
  }
}

// A marked dispatch of `epoch`: the other region's headers and first places that the node's
// peers filled in the previous launch, set back to all ones, a warp a record of the warps `w`.
// A header still all ones was not filled. Nothing reads that region in this launch, and the
// peers' next stores into it come after this kernel has ended (kernels/ep_lsa_sync.cuh).
__device__ inline void unset_marked_records(const LsaArgs& a, unsigned epoch, const Warp w) {
  const int n = a.shape.nranks, topk = static_cast<int>(a.shape.f.topk);
  char* headers = local_part(a, lsa_headers_at(a, epoch + 1u));
  char* grouped = local_part(a, lsa_grouped_at(a, epoch + 1u));
  const std::uint32_t stride = a.shape.f.payload_stride;
  const uint4 ones = make_uint4(kLsaUnset, kLsaUnset, kLsaUnset, kLsaUnset);
  const long long records = static_cast<long long>(n) * a.shape.tokens;
  for (long long r = w.id; r < records; r += w.count) {
    const int s = static_cast<int>(r / a.shape.tokens);
    if (s == a.shape.rank || a.nodes.lsa_peer[s] < 0) continue;
    auto* words = reinterpret_cast<std::uint32_t*>(headers + r * a.shape.header_bytes);
    if (!lsa_word_landed(words[0])) continue;
    int first = -1;
    for (int j0 = 0; j0 < topk && first < 0; j0 += 32) {
      const int place = j0 + w.lane < topk ? static_cast<int>(words[2 * topk + j0 + w.lane]) : kLsaNoPlace;
      const unsigned here = __ballot_sync(0xffffffffu, place >= 0);
      if (here != 0) first = __shfl_sync(0xffffffffu, place, __ffs(here) - 1);
    }
    __syncwarp();  // every lane has read the places before any word is set back
    if (first >= 0) {
      auto* d = reinterpret_cast<uint4*>(grouped + static_cast<std::size_t>(first) * stride);
      for (std::uint32_t k = w.lane; k < stride / 16; k += 32) d[k] = ones;
    }
    for (int k = w.lane; k < 3 * topk; k += 32) words[k] = kLsaUnset;
  }
}

// Stage 4, from the start on the helper warps and after its stores on every other, once the
// counts are in (they say what to wait for): the pieces of records from the node's peers, from
// a queue in the order they arrive (segment by segment of the i-th record of every peer, then
// of the (i+1)-th); a warp waits for the piece's flag and segment 0's (which brings the header)
// and copies it to the record's other local experts' places (a marked dispatch polls the header
// and the piece themselves: copy_marked_piece). Records from this rank went to
// every place at the stores; those from other nodes are lsa_unpack_remote's.
template <int V>
__device__ inline void duplicate_stage(const LsaArgs& a, unsigned epoch, int lane) {
  const int n = a.shape.nranks, me = a.shape.rank, topk = static_cast<int>(a.shape.f.topk);
  if (n < 2) return;
  char* headers = local_part(a, lsa_headers_at(a, epoch));
  char* grouped = local_part(a, lsa_grouped_at(a, epoch));
  char* flags = local_part(a, a.window.flags_offset);
  const std::uint32_t stride = a.shape.f.payload_stride, nseg = lsa_segments(stride, kPieceBytes<V>);
  wait_for(&a.signals.sync[kLsaCountsIn], epoch);
  int most = 0;  // records from the peer that sent the most
  for (int s = 0; s < n; ++s) {
    if (s != me && a.nodes.lsa_peer[s] >= 0) most = max(most, a.counts.counts_copy[s * n + me]);
  }
  if (a.schedule.dispatch_marked) {
    for_each_item(a, kDispatchKernel, most * (n - 1) * static_cast<int>(nseg), lane, [&](int q) {
      const std::uint32_t g = static_cast<std::uint32_t>(q) % nseg;
      const int source = (me + 1 + static_cast<int>(q / nseg) % (n - 1)) % n;
      const int i = static_cast<int>(q / nseg) / (n - 1);
      if (a.nodes.lsa_peer[source] < 0 || i >= a.counts.counts_copy[source * n + me]) return;
      copy_marked_piece<V>(a, headers, grouped, record_place(a, source, i), g, lane);
    });
    return;
  }
  for_each_item(a, kDispatchKernel, most * (n - 1) * static_cast<int>(nseg), lane, [&](int q) {
    const std::uint32_t g = static_cast<std::uint32_t>(q) % nseg;
    const int source = (me + 1 + static_cast<int>(q / nseg) % (n - 1)) % n;
    const int i = static_cast<int>(q / nseg) / (n - 1);
    if (a.nodes.lsa_peer[source] < 0 || i >= a.counts.counts_copy[source * n + me]) return;
    const std::size_t r = record_place(a, source, i);
    // Lane 0 waits for segment 0's flag (the header), lane 1 for this segment's, at once; the
    // warp's barrier orders their acquires before every lane's reads.
    if (lane == 0 || (lane == 1 && g > 0)) wait_for(flag_at(flags, r, lane == 0 ? 0 : g, nseg), epoch);
    __syncwarp();
    const Header h = header_at(headers, r, a);
    // Lane j reads top-k slot j0 + j's place, all lanes at once: where the payload landed (the
    // first place), and whether there are further places.
    int first = -1;
    bool copies = false;
    for (int j0 = 0; j0 < topk; j0 += 32) {
      const int place = j0 + lane < topk ? h.place[j0 + lane] : -1;
      unsigned here = __ballot_sync(0xffffffffu, place >= 0);
      if (here != 0 && first < 0) {
        first = __shfl_sync(0xffffffffu, place, __ffs(here) - 1);
        here &= here - 1;
      }
      copies = copies || here != 0;
    }
    if (!copies) return;
    const std::uint32_t begin = g * kPieceBytes<V>, end = min(begin + kPieceBytes<V>, stride);
    const Piece<V> piece = load_piece<V>(grouped + static_cast<std::size_t>(first) * stride, begin, end, lane);
    for (int j0 = 0; j0 < topk; j0 += 32) {
      const int place = j0 + lane < topk ? h.place[j0 + lane] : -1;
      unsigned further = __ballot_sync(0xffffffffu, place >= 0 && place != first);
      for (; further != 0; further &= further - 1) {
        const int at = __shfl_sync(0xffffffffu, place, __ffs(further) - 1);
        store_piece(grouped + static_cast<std::size_t>(at) * stride, piece, begin, end, lane);
      }
    }
  });
}

// A record's top-k slots j0 .. j0 + 31 that are this rank's experts, in slot order in the lowest
// lanes: lane c holds the c-th one's expert output and weight (a ballot over the header's
// places, then shuffles), `count` of them. Summing only these, in the same order, gives the
// same bits as walking every slot, with one round of loads where the slots of this rank's
// experts fall in both halves of the top-k.
struct LocalSlots {
  const std::uint16_t* from;
  float weight;
  int count;
};
__device__ inline LocalSlots local_slots(const LsaArgs& a, const Header& h, int j0, int lane) {
  const int topk = static_cast<int>(a.shape.f.topk);
  const std::uint16_t* from = nullptr;
  float weight = 0;
  if (j0 + lane < topk) {
    const int place = h.place[j0 + lane];
    if (place >= 0) {
      from = a.combine.expert_output + static_cast<std::size_t>(place) * a.shape.f.hidden;
      weight = h.weight[j0 + lane];
    }
  }
  const unsigned here = __ballot_sync(0xffffffffu, from != nullptr);
  const int count = __popc(here);
  const int c = lane < count ? static_cast<int>(__fns(here, 0, lane + 1)) : lane;
  from = reinterpret_cast<const std::uint16_t*>(__shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(from), c));
  weight = __shfl_sync(0xffffffffu, weight, c);
  return {lane < count ? from : nullptr, weight, count};
}

// Lane's share (8 elements at e0) of the fmaf chain over a record's local slots, in slot order
// (lane c of the warp holds the c-th). kLoadsInFlight slots are loaded before their fmafs.
__device__ inline void add_slots(float (&partial)[8], const LocalSlots& slots, std::uint32_t e0, bool mine) {
  for (int k0 = 0; k0 < slots.count; k0 += kLoadsInFlight) {
    uint4 v[kLoadsInFlight];
    float wk[kLoadsInFlight];
    bool has[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      const int j = k0 + k;
      const auto* src = reinterpret_cast<const std::uint16_t*>(
          __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(slots.from), j & 31));
      wk[k] = __shfl_sync(0xffffffffu, slots.weight, j & 31);
      has[k] = mine && j < slots.count;
      if (has[k]) v[k] = *reinterpret_cast<const uint4*>(src + e0);
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      if (!has[k]) continue;
      const auto* y = reinterpret_cast<const std::uint16_t*>(&v[k]);
#pragma unroll
      for (int m = 0; m < 8; ++m) partial[m] = fmaf(wk[k], bf16_to_float(y[m]), partial[m]);
    }
  }
}

__device__ inline uint4 to_bf16x8(const float (&x)[8]) {
  uint4 packed;
  auto* o = reinterpret_cast<std::uint16_t*>(&packed);
#pragma unroll
  for (int k = 0; k < 8; ++k) o[k] = float_to_bf16(x[k]);
  return packed;
}

// The combine's first stage: each (received record, piece of hidden) a storing warp, sources
// interleaved from this rank on. The record's slots of this rank's experts (local_slots:
// outputs and weights); per 8 elements the fmaf chain over them in slot order, rounded to
// bf16, stored at the record's place in its source's partials buffer, then (`flagged`) the
// piece's flag there. The header's first 32 slots are read once a piece, before the count
// check, so that their latency and the count's overlap; top-k above 32 reads the further slots
// 32 at a time, in order, at each pass.
__device__ inline void partials_stage(const LsaArgs& a, FlagBatch& flags, const Warp w, std::uint32_t piece, bool flagged) {
  const int n = a.shape.nranks;
  char* headers = local_part(a, lsa_headers_at(a, flags.epoch));  // as the dispatch of this epoch left them
  const std::uint32_t hidden = a.shape.f.hidden;
  const std::uint32_t nseg = lsa_segments(hidden, piece);
  const int topk = static_cast<int>(a.shape.f.topk);
  int most = 0;  // records from the source that sent the most
  for (int s = 0; s < n; ++s) most = max(most, a.counts.counts_copy[s * n + a.shape.rank]);
  const long long pieces = static_cast<long long>(most) * n * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int source = static_cast<int>((p % n + a.shape.rank) % n);
    const std::uint32_t g = static_cast<std::uint32_t>(p / n % nseg);
    const int i = static_cast<int>(p / n / nseg);  // among the source's records here
    const std::size_t r = record_place(a, source, i);  // within the room (i < tokens) either way
    const Header h = header_at(headers, r, a);
    const LocalSlots first = local_slots(a, h, 0, w.lane);  // read before the record is known to be there
    if (i >= a.counts.counts_copy[source * n + a.shape.rank]) continue;
    const std::size_t at = record_place(a, a.shape.rank, i);  // its place at the source
    // A source on this node: its partials buffer; on another node: by record here, for the
    // host to send.
    const int peer = a.nodes.lsa_peer[source];
    auto* dst = peer >= 0 ? reinterpret_cast<std::uint16_t*>(peer_part(a, a.window.partials_offset, peer)) +
                                at * hidden
                          : a.nodes.remote_partials + r * hidden;
    const std::uint32_t begin = g * piece, end = min(begin + piece, hidden);
    for (std::uint32_t e0 = begin + w.lane * 8; e0 - w.lane * 8 < end; e0 += 32 * 8) {
      const bool mine = e0 < end;
      float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      add_slots(partial, first, e0, mine);
      for (int j0 = 32; j0 < topk; j0 += 32) add_slots(partial, local_slots(a, h, j0, w.lane), e0, mine);
      if (mine) *reinterpret_cast<uint4*>(dst + e0) = to_bf16x8(partial);
    }
    if (flagged && peer >= 0) publish(flags, flag_at(peer_part(a, a.window.partial_flags_offset, peer), at, g, nseg), w.lane);
  }
  flush(flags, w.lane);
}

// Piece g (of `piece` elements) of token t's output: lane d finds where the token's partial
// from rank d lies (none: the token did not go there); per 8 elements the partials in
// ascending rank order, summed in fp32, rounded to bf16. Above 32 ranks, 32 at a time, in
// order. With flags (one node), the lanes first wait for the partials' flags; `marked` (one
// node, small pieces), each lane polls the 16 bytes it sums until they have landed, and sets
// them back to all ones once read (kernels/ep_lsa_sync.cuh).
__device__ inline void reduce_piece(const LsaArgs& a, int t, std::uint32_t g, std::uint32_t piece, const unsigned* flags,
                             unsigned epoch, bool marked, int lane) {
  const int n = a.shape.nranks;
  auto* partials = reinterpret_cast<std::uint16_t*>(local_part(a, a.window.partials_offset));
  const std::uint32_t hidden = a.shape.f.hidden, nseg = lsa_segments(hidden, piece);
  const int* slot = a.layout.slot + static_cast<std::size_t>(t) * n;
  if (flags != nullptr) {
    // Lane d waits for rank d's flag, all at once; the warp's barrier orders them before the reads.
    for (int d = lane; d < n; d += 32) {
      if (slot[d] >= 0) wait_for(flags + record_place(a, d, slot[d]) * nseg + g, epoch);
    }
    __syncwarp();
  }
  const std::uint32_t begin = g * piece, end = min(begin + piece, hidden);
  for (std::uint32_t e0 = begin + lane * 8; e0 - lane * 8 < end; e0 += 32 * 8) {
    const bool mine = e0 < end;
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int d0 = 0; d0 < n; d0 += 32) {
      std::uint16_t* from = nullptr;  // lane's rank d0 + lane
      if (d0 + lane < n && slot[d0 + lane] >= 0) {
        from = partials + record_place(a, d0 + lane, slot[d0 + lane]) * hidden;
      }
      const int ranks = min(32, n - d0);
      for (int k0 = 0; k0 < ranks; k0 += kLoadsInFlight) {
        uint4 v[kLoadsInFlight];
        std::uint16_t* src[kLoadsInFlight];
        bool has[kLoadsInFlight];
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) {
          const int d = k0 + k;
          src[k] = reinterpret_cast<std::uint16_t*>(
              __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(from), d & 31));
          has[k] = mine && d < ranks && src[k] != nullptr;
          if (has[k]) v[k] = marked ? load_relaxed(src[k] + e0) : *reinterpret_cast<const uint4*>(src[k] + e0);
        }
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) {
          if (!has[k]) continue;
          if (marked) {
            v[k] = until_landed(src[k] + e0, v[k], lsa_partial_landed);
            unset16(src[k] + e0);
          }
          const auto* part = reinterpret_cast<const std::uint16_t*>(&v[k]);
#pragma unroll
          for (int m = 0; m < 8; ++m) acc[m] += bf16_to_float(part[m]);
        }
      }
    }
    if (mine) *reinterpret_cast<uint4*>(a.combine.out + static_cast<std::size_t>(t) * hidden + e0) = to_bf16x8(acc);
  }
}

// The combine's second stage on one node, from the start on the helper warps and after its
// partials on every other: (token, piece) items from a queue in token order (the order their
// partials arrive), each once its partials have landed (their flags, or `marked` the partials
// themselves).
__device__ inline void reduce_stage(const LsaArgs& a, unsigned epoch, int lane, std::uint32_t piece, bool marked) {
  const auto* flags = marked ? nullptr : reinterpret_cast<const unsigned*>(local_part(a, a.window.partial_flags_offset));
  const int nseg = static_cast<int>(lsa_segments(a.shape.f.hidden, piece));
  for_each_item(a, kCombineKernel, a.shape.tokens * nseg, lane, [&](int q) {
    reduce_piece(a, q / nseg, static_cast<std::uint32_t>(q % nseg), piece, flags, epoch, marked, lane);
  });
}

// Hybrid: each (record from another node, payload segment) a warp: the payload to every local
// expert's place its header names; segment 0's warp also copies the header.
__device__ inline void unpack_remote_stage(const LsaArgs& a) {
  const int n = a.shape.nranks, topk = static_cast<int>(a.shape.f.topk);
  char* headers = local_part(a, a.window.headers_offset);
  char* grouped = local_part(a, a.window.grouped_offset);
  const Warp w = this_warp();
  const std::uint32_t nseg = lsa_segments(a.shape.f.payload_stride, a.shape.segment_bytes);
  const std::size_t stride = lsa_remote_record_bytes(a);
  const Starts st = starts_of(a);
  const int last = n - 1;  // records here from other nodes: up to the last source's end
  const int remote = st.remote_records_from(last) + (a.nodes.lsa_peer[last] < 0 ? a.counts.counts_copy[last * n + a.shape.rank] : 0);
  const long long pieces = static_cast<long long>(remote) * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int q = static_cast<int>(p / nseg);  // among the records from other nodes
    const std::uint32_t g = static_cast<std::uint32_t>(p % nseg);
    int s = last;  // its source: the last on another node whose records start at or before q
    while (s > 0 && (a.nodes.lsa_peer[s] >= 0 || st.remote_records_from(s) > q)) --s;
    const std::size_t record = record_place(a, s, q - st.remote_records_from(s));
    const char* packed = reinterpret_cast<const char*>(a.nodes.remote_recv) + static_cast<std::size_t>(q) * stride;
    const Header h = header_at(const_cast<char*>(packed), 0, a);
    const std::uint32_t begin = g * a.shape.segment_bytes;
    const std::uint32_t end = min(begin + a.shape.segment_bytes, a.shape.f.payload_stride);
    for (int j = 0; j < topk; ++j) {
      const int place = h.place[j];
      if (place >= 0) {
        warp_copy16(grouped + static_cast<std::size_t>(place) * a.shape.f.payload_stride, packed + a.shape.header_bytes, begin,
                    end, w.lane);
      }
    }
    if (g == 0) warp_copy16(headers + record * a.shape.header_bytes, packed, 0, a.shape.header_bytes, w.lane);
  }
}

// A cooperative launch of a dispatch or combine kernel: every block resident, so that blocks
// may wait on each other (flags, grid syncs, the work queue).
inline cudaError_t launch_cooperative(void (*kernel)(ncclDevComm, LsaArgs), const ncclDevComm& comm, const LsaArgs& a,
                                      int blocks, cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, comm, a);
}

}  // namespace commsweep::ep::kernels::lsa_stages

#endif  // COMMSWEEP_NCCL_DEVICE_API
