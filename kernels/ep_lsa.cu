// Dispatch and combine as one cooperative kernel each, on NCCL's device API. Stages are
// separated by grid-wide syncs (this rank's blocks) and LSA barriers (every rank's block b
// meets the others' block b), so that what a peer stored before its barrier is visible here
// after ours:
//   dispatch: layout (per destination rank and per expert, this rank's tokens in order) |
//             counts to every peer by the LL all-to-all, every expert segment's place on every rank |
//             each token once per destination rank, straight into its first expert's place
//             in the receiver's expert-grouped buffer, with a header (experts, weights,
//             places), barrier | the receiver copies tokens to their other experts' places
//   combine:  weighted partials to the tokens' owners, barrier | reduction in token order
// Across nodes (hybrid, kernels/ep_lsa.hpp) the same stages reach the node's peers, and
// records and partials for other nodes go to local buffers that the host exchanges.
// Work is split into (item, segment) pieces, a warp each, so that few tokens still spread over
// many warps; pieces for different peers interleave so that no peer's links take all stores.
// The arithmetic is src/pattern/ep_pattern.hpp's, in the order the host reference uses, so the
// result is bit-exact against it and against the alltoallv path.
#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include "ep_lsa.hpp"
#include "pattern/ep_pattern.hpp"

// The nccl.h included must be the one CMake found (cmake/FindNCCL.cmake, NCCL_ROOT): the CUDA
// toolkit's include folder holds another NCCL's, which may come first on the include path.
#if defined(COMMSWEEP_NCCL_FOUND_VERSION_CODE) && NCCL_VERSION_CODE != COMMSWEEP_NCCL_FOUND_VERSION_CODE
#error "nccl.h on the include path is not the NCCL that CMake found (NCCL_INCLUDE_DIR): another NCCL's headers come first"
#endif

#include "nccl_device_api.hpp"

namespace commsweep::ep::kernels {

#if COMMSWEEP_NCCL_DEVICE_API
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr std::uint32_t kSegmentBytes = 2048;   // payload bytes a warp copies per piece
constexpr std::uint32_t kSegmentElements = 1024;  // bf16 elements a warp reduces per piece
using Scan = cub::BlockScan<int, kThreads>;

__device__ char* local_part(const LsaArgs& a, std::size_t offset) {
  return static_cast<char*>(ncclGetLocalPointer(a.window, offset));
}
__device__ char* peer_part(const LsaArgs& a, std::size_t offset, int peer) {
  return static_cast<char*>(ncclGetPeerPointer(a.window, offset, peer));
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The kernel's span: when its first block started, when its last block ended.
__device__ void clock_start(const LsaArgs& a) {
  if (threadIdx.x == 0) atomicMin(&a.clock[0], global_ns());
}
__device__ void clock_end(const LsaArgs& a) {
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&a.clock[1], global_ns());
}
// When the last block finished stage k (kLsaDispatchStages / kLsaCombineStages).
__device__ void clock_mark(const LsaArgs& a, int k) {
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&a.clock[2 + k], global_ns());
}

// Every block's barrier with the same block on the other ranks: what they stored before it is
// visible here after it (release on arrival, acquire on waiting).
__device__ void lsa_barrier(const ncclDevComm& comm, int index) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), comm, ncclTeamLsa(comm), comm.lsaBarrier,
                                         static_cast<uint32_t>(index));
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

struct Warp {
  int lane, id, count;
};
__device__ Warp this_warp() {
  return {static_cast<int>(threadIdx.x % 32), static_cast<int>(blockIdx.x * kWarps + threadIdx.x / 32),
          static_cast<int>(gridDim.x * kWarps)};
}

// A warp copies bytes [begin, end) of a payload (multiples of 16) with 16-byte accesses, four
// in flight per lane.
__device__ void warp_copy16(char* dst, const char* src, std::uint32_t begin, std::uint32_t end, int lane) {
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

__device__ std::uint32_t segments(std::uint32_t size, std::uint32_t segment) {
  return (size + segment - 1) / segment;
}

// A record's header in the receiver's window: top-k experts, weights, and each slot's place in
// the receiver's expert-grouped buffer (-1: the expert is not there).
struct Header {
  std::int32_t* idx;
  float* weight;
  std::int32_t* place;
};
__device__ Header header_at(char* base, std::size_t record, const LsaArgs& a) {
  char* h = base + record * a.header_bytes;
  return {reinterpret_cast<std::int32_t*>(h), reinterpret_cast<float*>(h + 4 * a.f.topk),
          reinterpret_cast<std::int32_t*>(h + 8 * a.f.topk)};
}

// Stage 1: pieces of layout, a block each. Per destination rank: the slot of every token in
// its segment of the records. Per expert: every token's rank among this rank's tokens to it.
__device__ void layout_stage(const LsaArgs& a, typename Scan::TempStorage& temp) {
  const int per_rank = a.experts / a.nranks;
  const int topk = static_cast<int>(a.f.topk);
  for (int w = blockIdx.x; w < a.nranks + a.experts; w += gridDim.x) {
    const bool by_rank = w < a.nranks;
    const int target = by_rank ? w : w - a.nranks;
    int running = 0;
    for (int base = 0; base < a.tokens; base += kThreads) {
      const int t = base + threadIdx.x;
      int hit = -1;  // by rank: any slot; by expert: the slot that names it
      if (t < a.tokens) {
        for (int j = 0; j < topk; ++j) {
          const int e = a.idx[static_cast<std::size_t>(t) * topk + j];
          if ((by_rank ? e / per_rank : e) == target) hit = j;
        }
      }
      int prefix = 0, aggregate = 0;
      Scan(temp).ExclusiveSum(hit >= 0 ? 1 : 0, prefix, aggregate);
      if (by_rank && t < a.tokens) a.slot[static_cast<std::size_t>(t) * a.nranks + target] = hit >= 0 ? running + prefix : -1;
      if (!by_rank && hit >= 0) a.rank_in_expert[static_cast<std::size_t>(t) * topk + hit] = running + prefix;
      running += aggregate;
      __syncthreads();
    }
    if (threadIdx.x == 0) (by_rank ? a.send_counts : a.expert_sends)[target] = running;
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
__device__ CountMatrices exchange_counts(const ncclDevComm& comm, const LsaArgs& a) {
  const int n = a.nranks, E = a.experts, row = n + E, M = lsa_counts_elements(n, E) / n;
  ncclLLA2AHandle handle{a.counts_a2a_buffer, a.counts_a2a_slots};
  ncclLLA2ASession<ncclCoopCta> session(ncclCoopCta(), comm, ncclTeamLsa(comm), handle, 0, n * M);
  for (int i = threadIdx.x; i < n * M; i += blockDim.x) {
    const int peer = i / M, k = i % M;
    const int2 pair{a.send_counts[2 * k], 2 * k + 1 < row ? a.send_counts[2 * k + 1] : 0};
    session.send(peer, a.rank * M + k, pair);
  }
  auto* counts = reinterpret_cast<int*>(local_part(a, a.counts_offset));
  auto* per_expert = reinterpret_cast<int*>(local_part(a, a.expert_counts_offset));
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

// Stage 2b (block 0): from every rank's counts, where each of this rank's tokens lands on every
// rank and where each of its local experts' segments starts; across nodes, where each other
// node's destination starts in the records packed for the host to send.
__device__ void counts_stage(const CountMatrices m, const LsaArgs& a, typename Scan::TempStorage& temp) {
  const int n = a.nranks, E = a.experts;
  const int me = a.rank;
  for (int i = threadIdx.x; i < n * n; i += blockDim.x) a.counts_copy[i] = m.sends(i / n, i % n);
  if (threadIdx.x == 0) {
    int records = 0;
    for (int s = 0; s < n; ++s) records += m.sends(s, me);
    *a.records = records;
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x) {  // Starts (kernels/ep_lsa.hpp)
    int from = 0, at = 0, partials_from = 0, partials_at = 0, remote_from = 0, remote_to = 0;
    for (int k = 0; k < j; ++k) {
      from += m.sends(k, me);
      partials_from += m.sends(me, k);
      if (a.lsa_peer[k] < 0) {
        remote_from += m.sends(k, me);
        remote_to += m.sends(me, k);
      }
    }
    for (int k = 0; k < me; ++k) {
      at += m.sends(k, j);
      partials_at += m.sends(j, k);
    }
    const int values[kLsaStartKinds] = {from, at, partials_from, partials_at, remote_from, remote_to};
    for (int kind = 0; kind < kLsaStartKinds; ++kind) a.starts[kind * n + j] = values[kind];
  }
  // Every expert's tokens from all ranks; their running sum over the experts (a block scan).
  const int per_rank = E / n;
  int running = 0;
  for (int base = 0; base < E; base += kThreads) {
    const int e = base + threadIdx.x;
    int total = 0;
    if (e < E) {
      for (int s = 0; s < n; ++s) total += m.to_expert(s, e);
    }
    int prefix = 0, aggregate = 0;
    Scan(temp).ExclusiveSum(total, prefix, aggregate);
    if (e < E) {
      a.expert_total[e] = total;
      a.expert_prefix[e] = running + prefix;
    }
    running += aggregate;
    __syncthreads();
  }
  __syncthreads();
  // Where this rank's tokens to expert e start on e's rank: after the lower experts there, and
  // after the lower ranks' tokens to e. Then this rank's own segments.
  for (int e = threadIdx.x; e < E; e += blockDim.x) {
    int start = a.expert_prefix[e] - a.expert_prefix[(e / per_rank) * per_rank];
    for (int s = 0; s < a.rank; ++s) start += m.to_expert(s, e);
    a.expert_start[e] = start;
  }
  for (int l = threadIdx.x; l < a.local_experts; l += blockDim.x) {
    a.expert_counts[l] = a.expert_total[a.first_expert + l];
    a.expert_base[l] = a.expert_prefix[a.first_expert + l] - a.expert_prefix[a.first_expert];
  }
}

// The running sums of the counts (LsaArgs::starts), by what they locate.
struct Starts {
  const int* p;
  int n;
  __device__ int records_from(int j) const { return p[j]; }
  __device__ int records_at(int j) const { return p[n + j]; }
  __device__ int partials_from(int j) const { return p[2 * n + j]; }
  __device__ int partials_at(int j) const { return p[3 * n + j]; }
  __device__ int remote_records_from(int j) const { return p[4 * n + j]; }
  __device__ int remote_records_to(int j) const { return p[5 * n + j]; }
};
__device__ Starts starts_of(const LsaArgs& a) { return {a.starts, a.nranks}; }

// Stage 3: each (token, destination, payload segment) a warp, destinations fastest and
// starting from this rank. The token goes to its first expert's place on the destination;
// segment 0's warp also writes the header.
__device__ void send_stage(const LsaArgs& a) {
  const int n = a.nranks, topk = static_cast<int>(a.f.topk), per_rank = a.experts / n;
  const Warp w = this_warp();
  const std::uint32_t nseg = segments(a.f.payload_stride, kSegmentBytes);
  const long long pieces = static_cast<long long>(a.tokens) * n * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int d = static_cast<int>((p % n + a.rank) % n);
    const std::uint32_t g = static_cast<std::uint32_t>(p / n % nseg);
    const int t = static_cast<int>(p / n / nseg);
    const int s = a.slot[static_cast<std::size_t>(t) * n + d];
    if (s < 0) continue;
    const std::int32_t* idx = a.idx + static_cast<std::size_t>(t) * topk;
    int first = -1;  // the first slot whose expert is on d: its place gets the payload
    for (int j = 0; j < topk && first < 0; ++j) {
      if (idx[j] / per_rank == d) first = j;
    }
    const int place = a.expert_start[idx[first]] + a.rank_in_expert[static_cast<std::size_t>(t) * topk + first];
    // A peer on this node: its grouped buffer and headers; another node's rank: the packed
    // record (header, payload) that the host sends.
    const int peer = a.lsa_peer[d];
    char* packed = peer >= 0 ? nullptr
                             : reinterpret_cast<char*>(a.remote_send) +
                                   static_cast<std::size_t>(starts_of(a).remote_records_to(d) + s) * lsa_remote_record_bytes(a);
    char* payload = peer >= 0 ? peer_part(a, a.grouped_offset, peer) + static_cast<std::size_t>(place) * a.f.payload_stride
                              : packed + a.header_bytes;
    const std::uint32_t begin = g * kSegmentBytes;
    const std::uint32_t end = min(begin + kSegmentBytes, a.f.payload_stride);
    warp_copy16(payload, reinterpret_cast<const char*>(a.input) + static_cast<std::size_t>(t) * a.f.payload_stride,
                begin, end, w.lane);
    if (g != 0) continue;
    const Header h = peer >= 0 ? header_at(peer_part(a, a.headers_offset, peer),
                                           starts_of(a).records_at(d) + s, a)
                               : header_at(packed, 0, a);
    for (int j = w.lane; j < topk; j += 32) {
      const std::int32_t e = idx[j];
      h.idx[j] = e;
      h.weight[j] = a.weights[static_cast<std::size_t>(t) * topk + j];
      h.place[j] = e / per_rank == d
                       ? a.expert_start[e] + a.rank_in_expert[static_cast<std::size_t>(t) * topk + j]
                       : -1;
    }
  }
}

// The source rank of received record r (records are by source ascending): the last whose
// records start at or before r (a source with none shares its start with the next).
__device__ int source_of(const LsaArgs& a, int r) {
  const Starts st = starts_of(a);
  int s = a.nranks - 1;
  while (s > 0 && st.records_from(s) > r) --s;
  return s;
}

// Stage 4: each (received record, payload segment) a warp: the token, stored at its first
// local expert's place, copied to its other local experts' places.
__device__ void duplicate_stage(const LsaArgs& a) {
  char* headers = local_part(a, a.headers_offset);
  char* grouped = local_part(a, a.grouped_offset);
  const int topk = static_cast<int>(a.f.topk);
  const Warp w = this_warp();
  const std::uint32_t nseg = segments(a.f.payload_stride, kSegmentBytes);
  const long long pieces = static_cast<long long>(*a.records) * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const std::size_t r = static_cast<std::size_t>(p / nseg);
    const std::uint32_t begin = static_cast<std::uint32_t>(p % nseg) * kSegmentBytes;
    const std::uint32_t end = min(begin + kSegmentBytes, a.f.payload_stride);
    if (a.gathered != nullptr && a.lsa_peer[source_of(a, static_cast<int>(r))] < 0) continue;  // lsa_unpack_remote's
    const Header h = header_at(headers, r, a);
    int first = -1;
    for (int j = 0; j < topk; ++j) {
      const int place = h.place[j];
      if (place < 0) continue;
      if (first < 0) {
        first = place;
        continue;
      }
      warp_copy16(grouped + static_cast<std::size_t>(place) * a.f.payload_stride,
                  grouped + static_cast<std::size_t>(first) * a.f.payload_stride, begin, end, w.lane);
    }
  }
}

__global__ void __launch_bounds__(kThreads) dispatch_kernel(ncclDevComm comm, LsaArgs a) {
  __shared__ typename Scan::TempStorage temp;
  cg::grid_group grid = cg::this_grid();
  clock_start(a);
  const bool one_node = a.gathered == nullptr;
  if (one_node) layout_stage(a, temp);  // else lsa_layout ran before the gather
  clock_mark(a, 0);
  grid.sync();
  if (blockIdx.x == 0) {
    const int n = a.nranks;
    counts_stage(one_node ? exchange_counts(comm, a) : CountMatrices{a.gathered, n + a.experts, a.gathered + n, n + a.experts},
                 a, temp);
  }
  clock_mark(a, 1);
  grid.sync();
  send_stage(a);
  clock_mark(a, 2);
  lsa_barrier(comm, a.barrier_base + blockIdx.x);
  clock_mark(a, 3);
  grid.sync();
  duplicate_stage(a);
  clock_end(a);
}

// The combine's first stage: each (received record, segment of hidden) a warp, sources
// interleaved from this rank on. Lane j looks up top-k slot j's expert output here (none: not
// this rank's expert) and weight; per 8 elements the fmaf chain over the slots in order (the
// lanes' values passed round by shuffles), rounded to bf16, stored at the record's place in
// its source's partials buffer. Top-k above 32 takes the slots 32 at a time, in order.
__device__ void partials_stage(const LsaArgs& a) {
  const int n = a.nranks;
  char* headers = local_part(a, a.headers_offset);
  const Warp w = this_warp();
  const std::uint32_t hidden = a.f.hidden;
  const std::uint32_t nseg = segments(hidden, kSegmentElements);
  const int topk = static_cast<int>(a.f.topk);
  int most = 0;  // records from the source that sent the most
  for (int s = 0; s < n; ++s) most = max(most, a.counts_copy[s * n + a.rank]);
  const long long pieces = static_cast<long long>(most) * n * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int source = static_cast<int>((p % n + a.rank) % n);
    const std::uint32_t g = static_cast<std::uint32_t>(p / n % nseg);
    const int i = static_cast<int>(p / n / nseg);  // among the source's records here
    if (i >= a.counts_copy[source * n + a.rank]) continue;
    const int r = starts_of(a).records_from(source) + i;
    const int at = starts_of(a).partials_at(source) + i;  // its place at the source
    // A source on this node: its partials buffer; on another node: by record here, for the
    // host to send.
    const int peer = a.lsa_peer[source];
    auto* dst = peer >= 0 ? reinterpret_cast<std::uint16_t*>(peer_part(a, a.partials_offset, peer)) +
                                static_cast<std::size_t>(at) * hidden
                          : a.remote_partials + static_cast<std::size_t>(r) * hidden;
    const Header h = header_at(headers, r, a);
    const std::uint32_t begin = g * kSegmentElements, end = min(begin + kSegmentElements, hidden);
    for (std::uint32_t e0 = begin + w.lane * 8; e0 - w.lane * 8 < end; e0 += 32 * 8) {
      float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int j0 = 0; j0 < topk; j0 += 32) {
        const std::uint16_t* from = nullptr;  // lane's slot j0 + lane
        float weight = 0;
        if (j0 + w.lane < topk) {
          const int place = h.place[j0 + w.lane];
          if (place >= 0) {
            from = a.expert_output + static_cast<std::size_t>(place) * hidden;
            weight = h.weight[j0 + w.lane];
          }
        }
        const int slots = min(32, topk - j0);
        for (int j = 0; j < slots; ++j) {
          const auto* src = reinterpret_cast<const std::uint16_t*>(
              __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(from), j));
          const float wj = __shfl_sync(0xffffffffu, weight, j);
          if (src == nullptr || e0 >= end) continue;
          const uint4 v = *reinterpret_cast<const uint4*>(src + e0);
          const auto* y = reinterpret_cast<const std::uint16_t*>(&v);
#pragma unroll
          for (int k = 0; k < 8; ++k) partial[k] = fmaf(wj, bf16_to_float(y[k]), partial[k]);
        }
      }
      if (e0 >= end) continue;
      uint4 packed;
      auto* o = reinterpret_cast<std::uint16_t*>(&packed);
#pragma unroll
      for (int k = 0; k < 8; ++k) o[k] = float_to_bf16(partial[k]);
      *reinterpret_cast<uint4*>(dst + e0) = packed;
    }
  }
}

// The combine's second stage: each (token, segment of hidden) a warp; lane d finds where the
// token's partial from rank d lies (none: the token did not go there); per 8 elements the
// partials in ascending rank order, summed in fp32, rounded to bf16. Above 32 ranks, 32 at a
// time, in order.
__device__ void reduce_stage(const LsaArgs& a) {
  const int n = a.nranks;
  const auto* partials = reinterpret_cast<const std::uint16_t*>(local_part(a, a.partials_offset));
  const Warp w = this_warp();
  const std::uint32_t hidden = a.f.hidden;
  const std::uint32_t nseg = segments(hidden, kSegmentElements);
  const long long pieces = static_cast<long long>(a.tokens) * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int t = static_cast<int>(p / nseg);
    const std::uint32_t begin = static_cast<std::uint32_t>(p % nseg) * kSegmentElements;
    const std::uint32_t end = min(begin + kSegmentElements, hidden);
    for (std::uint32_t e0 = begin + w.lane * 8; e0 - w.lane * 8 < end; e0 += 32 * 8) {
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int d0 = 0; d0 < n; d0 += 32) {
        const std::uint16_t* from = nullptr;  // lane's rank d0 + lane
        if (d0 + w.lane < n) {
          const int d = d0 + w.lane;
          const int s = a.slot[static_cast<std::size_t>(t) * n + d];
          if (s >= 0) from = partials + static_cast<std::size_t>(starts_of(a).partials_from(d) + s) * hidden;
        }
        const int ranks = min(32, n - d0);
        for (int d = 0; d < ranks; ++d) {
          const auto* src = reinterpret_cast<const std::uint16_t*>(
              __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(from), d));
          if (src == nullptr || e0 >= end) continue;
          const uint4 v = *reinterpret_cast<const uint4*>(src + e0);
          const auto* part = reinterpret_cast<const std::uint16_t*>(&v);
#pragma unroll
          for (int k = 0; k < 8; ++k) acc[k] += bf16_to_float(part[k]);
        }
      }
      if (e0 >= end) continue;
      uint4 packed;
      auto* o = reinterpret_cast<std::uint16_t*>(&packed);
#pragma unroll
      for (int k = 0; k < 8; ++k) o[k] = float_to_bf16(acc[k]);
      *reinterpret_cast<uint4*>(a.out + static_cast<std::size_t>(t) * hidden + e0) = packed;
    }
  }
}

__global__ void __launch_bounds__(kThreads) combine_kernel(ncclDevComm comm, LsaArgs a) {
  cg::grid_group grid = cg::this_grid();
  clock_start(a);
  partials_stage(a);
  clock_mark(a, 0);
  lsa_barrier(comm, a.barrier_base + blockIdx.x);
  clock_mark(a, 1);
  if (a.gathered != nullptr) {  // lsa_reduce runs once the partials from other nodes are in
    clock_end(a);
    return;
  }
  grid.sync();
  reduce_stage(a);
  clock_end(a);
}

// Hybrid: each (record from another node, payload segment) a warp: the payload to every local
// expert's place its header names; segment 0's warp also copies the header.
__device__ void unpack_remote_stage(const LsaArgs& a) {
  const int n = a.nranks, topk = static_cast<int>(a.f.topk);
  char* headers = local_part(a, a.headers_offset);
  char* grouped = local_part(a, a.grouped_offset);
  const Warp w = this_warp();
  const std::uint32_t nseg = segments(a.f.payload_stride, kSegmentBytes);
  const std::size_t stride = lsa_remote_record_bytes(a);
  const Starts st = starts_of(a);
  const int last = n - 1;  // records here from other nodes: up to the last source's end
  const int remote = st.remote_records_from(last) + (a.lsa_peer[last] < 0 ? a.counts_copy[last * n + a.rank] : 0);
  const long long pieces = static_cast<long long>(remote) * nseg;
  for (long long p = w.id; p < pieces; p += w.count) {
    const int q = static_cast<int>(p / nseg);  // among the records from other nodes
    const std::uint32_t g = static_cast<std::uint32_t>(p % nseg);
    int s = last;  // its source: the last on another node whose records start at or before q
    while (s > 0 && (a.lsa_peer[s] >= 0 || st.remote_records_from(s) > q)) --s;
    const int record = st.records_from(s) + q - st.remote_records_from(s);
    const char* packed = reinterpret_cast<const char*>(a.remote_recv) + static_cast<std::size_t>(q) * stride;
    const Header h = header_at(const_cast<char*>(packed), 0, a);
    const std::uint32_t begin = g * kSegmentBytes;
    const std::uint32_t end = min(begin + kSegmentBytes, a.f.payload_stride);
    for (int j = 0; j < topk; ++j) {
      const int place = h.place[j];
      if (place >= 0) {
        warp_copy16(grouped + static_cast<std::size_t>(place) * a.f.payload_stride, packed + a.header_bytes, begin,
                    end, w.lane);
      }
    }
    if (g == 0) warp_copy16(headers + static_cast<std::size_t>(record) * a.header_bytes, packed, 0, a.header_bytes, w.lane);
  }
}

__global__ void __launch_bounds__(kThreads) layout_kernel(LsaArgs a) {
  __shared__ typename Scan::TempStorage temp;
  layout_stage(a, temp);
}
__global__ void __launch_bounds__(kThreads) unpack_remote_kernel(LsaArgs a) { unpack_remote_stage(a); }
__global__ void __launch_bounds__(kThreads) reduce_kernel(LsaArgs a) { reduce_stage(a); }

cudaError_t launch(void (*kernel)(ncclDevComm, LsaArgs), const ncclDevComm& comm, const LsaArgs& a,
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

}  // namespace

int lsa_max_blocks(int device) {
  int sms = 0, per_sm_dispatch = 0, per_sm_combine = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_dispatch, dispatch_kernel, kThreads, 0) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_combine, combine_kernel, kThreads, 0) != cudaSuccess) {
    return 0;
  }
  return sms * std::min(per_sm_dispatch, per_sm_combine);
}

// Dispatch: one per block; combine: one per block, after those.
int lsa_barrier_count(int blocks) { return 2 * blocks; }

cudaError_t lsa_dispatch(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream) {
  return launch(dispatch_kernel, comm, a, blocks, stream);
}

cudaError_t lsa_combine(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream) {
  return launch(combine_kernel, comm, a, blocks, stream);
}

cudaError_t lsa_layout(const LsaArgs& a, int blocks, cudaStream_t stream) {
  layout_kernel<<<blocks, kThreads, 0, stream>>>(a);
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
