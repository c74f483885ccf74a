// The MoE exchange written from inside kernels on NCCL's device API (NCCL >= 2.28): each rank
// stores each token once per destination rank straight into the receiver's expert-grouped
// symmetric buffer over NVLink (load/store access, "LSA"), and the combine stores the experts'
// weighted partial sums straight back.
// One cooperative kernel each way; the host side is src/ep/gpu/lsa_exchange.cpp. On one node the
// receiver's work runs under the stores: with many tokens every stored piece (a segment of a
// token or of a partial) is followed by a flag in the receiver's window; with few, each piece
// marks its own arrival (its room is all ones until it lands: lsa_dispatch_marked,
// lsa_combine_marked). Warps of the receiver that wait on those flags or marks copy tokens to
// their further experts' places (dispatch) and sum the partials (combine) while the stores are
// still arriving.
//
// Ranks on several nodes (hybrid): the LSA team is this rank's node. Peers on the node are
// reached as above; records for ranks on other nodes (header then payload) are packed into a
// local buffer that the host sends with ncclSend / ncclRecv (the alltoallv path), and so are the
// partials for tokens from other nodes. The counts come from an ncclAllGather over all ranks
// instead of stores and a barrier, and separate kernels run the layout before it, the unpacking
// of records from other nodes, and the reduction after the partials from other nodes arrive.
//
// Every record, entry and partial has a fixed place on its receiver that the sender computes
// from its own counts: source s's records start at s x tokens, its entries at s x entries_room.
// So the stores start once this rank's layout is done; the counts travel under them and tell
// the receiver only what to wait for (and its experts where their entries are).
//
// The symmetric window (the same offsets on every rank) holds:
//   counts:        nranks x nranks int32, [s][d] = records rank s sends to rank d
//   expert counts: nranks x experts int32, [s][e] = rank s's tokens to expert e
//   headers:       nranks x tokens: rank s's i-th record here at s x tokens + i (its records
//                  here in its token order): top-k experts, weights, each slot's place in the
//                  grouped buffer (kLsaNoPlace: not here)
//   grouped:       nranks x entries_room entries of payload_stride bytes: rank s's region from
//                  s x entries_room holds its tokens to this rank's experts, local experts in
//                  order, each expert's tokens in s's token order (segment (l, s): the
//                  expert_counts / expert_base entry l x nranks + s)
//   partials:      nranks x tokens: the combine's receive buffer, rank d's partial of this
//                  rank's token t at d x tokens + (t's place among the records to d); all ones
//                  (kLsaUnset) between combines, where they carry their own arrival
//   flags:         one uint32 per (record place, payload segment: segment_bytes): the launch's
//                  epoch once that segment (segment 0: and the header) has landed
//   partial flags: one uint32 per (partial place, piece of kLsaCombinePieceMax elements),
//                  likewise, where the combine's pieces are that large (lsa_combine_marked)
// A marked dispatch (LsaArgs::schedule.dispatch_marked) has two of the headers and of the grouped buffer,
// each part's two halves back to back: launch k fills region k % 2, all ones before it
// (lsa_headers_at, lsa_grouped_at; kernels/ep_lsa_sync.cuh, marks).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

#include "pattern/ep_record.hpp"

struct ncclDevComm;

namespace commsweep::ep::kernels {

// The kernels' arguments (LsaArgs, below), by concern. Every pointer is device memory (the
// window's parts are reached through window.handle); the host side fills them once per case
// (src/ep/gpu/lsa_exchange.cpp: LsaExchange::prepare).

// The case's shape, as this rank sees it.
struct LsaShape {
  std::uint32_t header_bytes = 0;   // 12 x topk, rounded up to 16
  std::uint32_t segment_bytes = 0;  // payload bytes a dispatch piece and its flag cover: lsa_segment_bytes
  int rank = 0, nranks = 0, tokens = 0, experts = 0, local_experts = 0, first_expert = 0;
  int entries_room = 0;  // entries a rank has room for in each rank's grouped buffer: lsa_entries_room
  RecordFormat f{};
};
// The symmetric window and where its parts start (above): the same offsets on every rank.
struct LsaWindow {
  ncclWindow_t handle = nullptr;
  std::size_t counts_offset = 0, expert_counts_offset = 0, headers_offset = 0, grouped_offset = 0,
              partials_offset = 0, flags_offset = 0, partial_flags_offset = 0;
};
// How the work is spread over the launch's warps, and how the receiver learns what landed.
struct LsaSchedule {
  int barrier_base = 0;  // this kernel's LSA barriers: base + block index
  // One node, few tokens: the dispatch's records carry their own arrival (no flags); its
  // headers and grouped buffer are two regions that launches take in turn (above).
  int dispatch_marked = 0;
  // Warps of each block that take the receiver's work (copies to further experts, the
  // reduction) from the start; the others store first, then join them (kernels/ep_lsa.cu).
  int dispatch_helpers = 0, combine_helpers = 0;
  int flag_batch = 1;  // pieces a warp stores before it publishes their flags, 1..kLsaFlagBatchMax
};
// What the kernels' blocks and the ranks synchronise through, besides the window's flags.
struct LsaSignals {
  // Local, zeroed with the flags at each case: LsaSync (below).
  unsigned* sync = nullptr;
  // One node: the counts travel by NCCL's LL all-to-all (ncclLLA2ASession, block 0): the
  // resource buffer NCCL assigned (an ncclLLA2AHandle's parts) and its slots.
  std::uint32_t counts_a2a_buffer = 0, counts_a2a_slots = 0;
};
// Which ranks are this node's (the LSA team), and across nodes (hybrid) what the host moves.
struct LsaNodes {
  // Per rank: its index in this rank's LSA team, or -1 where it is on another node.
  const int* lsa_peer = nullptr;
  // Hybrid only (nullptr on one node): every rank's row of counts, nranks x (nranks + experts)
  // (its records per rank, then its tokens per expert), gathered before the dispatch kernel.
  const int* gathered = nullptr;
  std::uint8_t* remote_send = nullptr;       // records for other nodes' ranks, by destination
  const std::uint8_t* remote_recv = nullptr; // records from other nodes' ranks, by source
  std::uint16_t* remote_partials = nullptr;  // per received record (all sources) x hidden
};
// This rank's tokens.
struct LsaInput {
  const std::uint8_t* payload = nullptr;  // tokens x payload_stride
  const std::int32_t* idx = nullptr;      // tokens x topk: the experts
  const float* weights = nullptr;         // tokens x topk
};
// The layout of this rank's tokens (local workspaces): where each lands.
struct LsaLayout {
  int* slot = nullptr;            // tokens x nranks: place among the records to that rank, or -1
  int* chunk_counts = nullptr;    // lsa_layout_chunks x (nranks + experts): each chunk's tokens per rank, per expert
  int* send_counts = nullptr;     // nranks, then expert_sends right after it (one row)
  int* rank_in_expert = nullptr;  // tokens x topk: the token's rank among this rank's tokens to that expert
  int* expert_sends = nullptr;    // experts: this rank's tokens to each
  int* expert_start = nullptr;    // experts: where this rank's tokens to it start on its rank
};
// Every rank's counts as this rank received them, and what it derives from them (local).
struct LsaCounts {
  int* counts_copy = nullptr;     // nranks x nranks: the counts as every rank saw them this round
  int* starts = nullptr;          // kLsaStartKinds x nranks: running sums of the counts (below)
  int* expert_counts = nullptr;   // local experts x nranks: entries of segment (l, s)
  int* expert_base = nullptr;     // local experts x nranks: where segment (l, s) starts
};
// The combine's input and result (local).
struct LsaCombine {
  const std::uint16_t* expert_output = nullptr;  // entries x hidden (bf16), as grouped
  std::uint16_t* out = nullptr;                  // tokens x hidden (bf16): the combine's result
};
// The kernel's own span in %globaltimer nanoseconds: [0] the first block's start
// (atomicMin), [1] the last block's end (atomicMax), [2 + k] when the last block (or warp)
// finished stage k (the stage names below, but the last); then kLsaSmWords words, one bit per
// SM that ran a block (%smid); preset to (max, 0, 0...) before each launch.
struct LsaTiming {
  unsigned long long* clock = nullptr;
};
// Everything a dispatch or combine kernel is launched with (by value). The groups keep the
// order of the flat struct they replaced, so that the kernels' parameter block, and the code
// generated from it, stayed as they were (kernels/NOTES-ep-lsa.md, "The files").
struct LsaArgs {
  LsaWindow window;
  LsaShape shape;
  LsaSchedule schedule;
  LsaSignals signals;
  LsaNodes nodes;
  LsaInput input;
  LsaLayout layout;
  LsaCounts counts;
  LsaCombine combine;
  LsaTiming timing;
};
inline constexpr int kLsaClockSlots = 10;
inline constexpr int kLsaThreads = 512;  // a block of either cooperative kernel
// A header's place for a top-k slot whose expert is not on the record's rank: negative, and not
// all ones, so that a marked header never reads as unset (lsa_word_landed).
inline constexpr std::int32_t kLsaNoPlace = INT32_MIN;
inline constexpr int kLsaSmWords = 4;  // SMs 0..255 (an H100 or H200 has 132)
inline constexpr int kLsaFlagBatchMax = 8;
// LsaArgs::signals.sync, per kernel (0 dispatch, 1 combine): [k] the epoch of its last launch, which the
// flags of the next launch carry plus one; [2 + k] its blocks that finished this launch (the
// last one moves the epoch on and clears the rest); [4 + k] the next item of its work queue;
// [6] the dispatch's epoch once every rank's counts are in (counts_copy, expert_counts, ...).
enum LsaSync { kLsaEpoch = 0, kLsaFinished = 2, kLsaQueue = 4, kLsaCountsIn = 6, kLsaSyncWords = 7 };
// LsaArgs::counts.starts, derived from the counts once per dispatch (row k x nranks + rank j):
//   0 remote_records_from: where rank j's records start among those from other nodes here
//   1 remote_records_to:   where rank j's records start among those packed for other nodes
inline constexpr int kLsaStartKinds = 2;
// Entries a rank has room for in each rank's grouped buffer: each of its tokens in up to
// min(topk, local experts) of that rank's experts.
inline int lsa_entries_room(int tokens, int topk, int local_experts) {
  return tokens * (topk < local_experts ? topk : local_experts);
}
// The stages each kernel's clock marks. stores / partials end when the last warp finished its
// stores; duplicates / reduction are what the receiver's work took after that (the rest of it
// ran under the stores). On one node the counts go to every peer under the stores (no stage of
// their own); across nodes they were gathered before the kernel, which places them first. Across
// nodes the combine kernel ends at a barrier (lsa_reduce follows).
inline constexpr const char* kLsaDispatchStages[] = {"layout", "stores", "duplicates"};
inline constexpr const char* kLsaDispatchStagesAcrossNodes[] = {"counts", "stores", "duplicates"};
inline constexpr const char* kLsaCombineStages[] = {"partials", "reduction"};
inline constexpr const char* kLsaCombineStagesAcrossNodes[] = {"partials", "barrier"};
// The payload bytes per dispatch flag: one of two sizes.
inline constexpr std::uint32_t kLsaSegmentBytesMin = 2048, kLsaSegmentBytesMax = 2560;
#ifdef __CUDACC__
__host__ __device__
#endif
inline std::uint32_t lsa_segments(std::uint32_t size, std::uint32_t segment) { return (size + segment - 1) / segment; }
// Warps of a launch of `blocks` blocks that store: all but each block's `helpers`.
#ifdef __CUDACC__
__host__ __device__
#endif
inline long long lsa_storing_warps(int blocks, int helpers) {
  return static_cast<long long>(blocks) * (kLsaThreads / 32 - helpers);
}
// bf16 elements per combine flag (a piece a warp computes and stores, and a reduction item):
// 1024, or 512 where pieces of 1024 would give the storing warps at most two each. Every
// piece is a latency chain (the record's header, the expert outputs, the stores, the flag, the
// reduction's loads), and with so few a warp the chains, not the links, set the time.
// Measured on 4 x H200 (results/figures-log.md, version 9): at hidden 7168 on 264 blocks,
// 128 and 256 tokens (about 1 and 2 pieces of 1024 a storing warp) combined 1.7 and 1.0 us
// faster in pieces of 512 than of 1024 in the same build; larger cases keep pieces of 1024.
// `records` is the room (ranks x tokens) and `storing_warps` the launch's, so that every rank
// picks the same (the combine kernel calls it).
inline constexpr std::uint32_t kLsaCombinePieceMax = 1024, kLsaCombinePieceMin = 512;
#ifdef __CUDACC__
__host__ __device__
#endif
inline std::uint32_t lsa_combine_piece(long long records, std::uint32_t hidden, long long storing_warps) {
  const long long pieces = records * lsa_segments(hidden, kLsaCombinePieceMax);
  return pieces <= 2 * storing_warps ? kLsaCombinePieceMin : kLsaCombinePieceMax;
}
// Marks: where there are few tokens, a piece carries its own arrival instead of a flag. Its
// room holds all ones (kLsaUnset) until it lands, and no word of what lands there is all ones,
// so the receiver polls the piece itself; the sender stores no flag and needs no fence
// (kernels/ep_lsa_sync.cuh). A receiver sets the marks back once nothing reads the piece again.
inline constexpr std::uint32_t kLsaUnset = 0xFFFFFFFFu;
// Whether the combine's partials are marked: on one node, in pieces of kLsaCombinePieceMin. The
// reader sets each 16 bytes back once read. A partial's bf16 halves are never 0xFFFF: partials
// are fmaf sums of finite values, and float_to_bf16 rounds a finite float to a finite bf16 or
// an infinity (0x7F80 / 0xFF80), never to that NaN.
// Measured at 128 tokens, hidden 7168, bf16 (results/figures-log.md, version 11): the combine
// took 24.6 us with marks against 29.0 with flags on 4 x H100 (call 30), and 24.6 against 28.0
// on 4 x H200 (an experiment build of the same mechanism, call 29): the fence and the flag's
// trip are off the reduction's path.
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool lsa_combine_marked(std::uint32_t piece, bool one_node) {
  return one_node && piece == kLsaCombinePieceMin;
}
// Whether a 32-bit word of the partials buffer holds a partial's two bf16 elements: neither
// half still reads 0xFFFF (checked a half at a time, so that a store seen in parts never passes).
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool lsa_partial_landed(std::uint32_t word) { return (word & 0xFFFFu) != 0xFFFFu && (word >> 16) != 0xFFFFu; }
// Whether the dispatch is marked: on one node, wherever the combine's partials are (the same
// rule, so that a case marks both or neither). Its records then need no flag; its headers and
// grouped buffer are two regions that launches take in turn (above). Measured at 128 tokens,
// hidden 7168 on 4 x H100 (results/figures-log.md, version 12, call 32): the dispatch took
// 25.8 us bf16 and 21.8 fp8 marked, against 30.1 and 22.6 with flags: the last fence is gone and
// the receiver's copies run under the stores.
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool lsa_dispatch_marked(long long records, std::uint32_t hidden, long long combine_storing_warps,
                                bool one_node) {
  return lsa_combine_marked(lsa_combine_piece(records, hidden, combine_storing_warps), one_node);
}
// Where the dispatch of launch `epoch` puts its headers and grouped buffer (window offsets), and
// where the experts, the check and the combine of that launch read them: the region epoch % 2
// of a marked dispatch (each part is two regions back to back), else the one region.
#ifdef __CUDACC__
__host__ __device__
#endif
inline std::size_t lsa_headers_at(const LsaArgs& a, unsigned epoch) {
  return a.window.headers_offset + (a.schedule.dispatch_marked ? (epoch & 1u) * ((a.window.grouped_offset - a.window.headers_offset) / 2) : 0);
}
#ifdef __CUDACC__
__host__ __device__
#endif
inline std::size_t lsa_grouped_at(const LsaArgs& a, unsigned epoch) {
  return a.window.grouped_offset + (a.schedule.dispatch_marked ? (epoch & 1u) * ((a.window.partials_offset - a.window.grouped_offset) / 2) : 0);
}
// Whether a 32-bit word of a marked dispatch's record (header or payload) has landed: it is
// not all ones, which experts, places (kLsaNoPlace), finite weights, bf16 pairs, e4m3 bytes
// (0xFF is a NaN, never made) and fp32 scales never are; the payload's padding is zeroes.
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool lsa_word_landed(std::uint32_t word) { return word != kLsaUnset; }
// Payload bytes per dispatch flag (a piece a warp stores): 2048 or 2560, whichever leaves a
// record's last piece fullest. Measured on 4 x H100 (results/figures-log.md, version 7): bf16
// at hidden 7168 (14336 bytes) is fastest in 7 pieces of 2048, fp8 (7392 bytes with its scales)
// in 3 of 2560 rather than 4 of 2048 with a last one of 1248.
inline std::uint32_t lsa_segment_bytes(std::uint32_t payload_stride) {
  const std::uint32_t small = kLsaSegmentBytesMin, large = kLsaSegmentBytesMax;
  const std::uint32_t left_small = lsa_segments(payload_stride, small) * small - payload_stride;
  const std::uint32_t left_large = lsa_segments(payload_stride, large) * large - payload_stride;
  return left_large < left_small ? large : small;
}

// The layout takes this rank's tokens in chunks of kLsaLayoutChunk, a block's each.
inline constexpr int kLsaLayoutChunk = 128;
#ifdef __CUDACC__
__host__ __device__
#endif
inline int lsa_layout_chunks(int tokens) { return tokens > kLsaLayoutChunk ? (tokens + kLsaLayoutChunk - 1) / kLsaLayoutChunk : 1; }

// Blocks a cooperative launch of either kernel can keep resident on `device` (0: none).
int lsa_max_blocks(int device);

// The kernels an lsa exchange launches (src/ep/gpu/lsa_exchange.hpp: LsaVariant): the dispatch and
// the combine (cooperative launches; block b of every rank meets block b of the others), and
// how many blocks of both a device keeps resident. A kernel variant brings its own three, with
// the LsaArgs, window layout and hybrid steps below.
struct LsaKernels {
  cudaError_t (*dispatch)(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream);
  cudaError_t (*combine)(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream);
  int (*max_blocks)(int device);
};
// This file's: lsa_dispatch, lsa_combine, lsa_max_blocks (declared below).
const LsaKernels& lsa_kernels();
// LSA barriers the two kernels need for `blocks` blocks (the device communicator's
// lsaBarrierCount): the dispatch's per block from 0, the combine's per block from `blocks`.
int lsa_barrier_count(int blocks);
// 8-byte elements of the counts' LL all-to-all for `nranks` ranks and `experts` experts: each
// rank's row (records per rank, tokens per expert) to every rank, two counts an element.
#ifdef __CUDACC__
__host__ __device__
#endif
inline int lsa_counts_elements(int nranks, int experts) { return nranks * ((nranks + experts + 1) / 2); }
// Every rank must launch the same number of blocks (block b meets block b of the others) and
// launch each kernel as often as the others since their sync words and flags were zeroed (the
// flags carry the launch's epoch).
// Hybrid (a.nodes.gathered set): the dispatch starts at the stores (lsa_layout ran before the counts
// were gathered), and the combine ends at its barrier (lsa_reduce runs once the partials from
// other nodes are in).
cudaError_t lsa_dispatch(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream);
cudaError_t lsa_combine(const ncclDevComm& comm, const LsaArgs& a, int blocks, cudaStream_t stream);
// Hybrid steps, ordinary launches: the layout (send_counts and expert_sends, one row to gather,
// and where this rank's tokens land: slot, rank_in_expert, expert_start);
// the records from other nodes into the grouped buffer (every local expert's place) and their
// headers; the reduction.
cudaError_t lsa_layout(const LsaArgs& a, int blocks, cudaStream_t stream);
cudaError_t lsa_unpack_remote(const LsaArgs& a, int blocks, cudaStream_t stream);
cudaError_t lsa_reduce(const LsaArgs& a, int blocks, cudaStream_t stream);
// Ranks the layout's shared scratch holds a value for (local_places in kernels/ep_lsa.cu).
inline constexpr int kLsaRanksMax = 4096;
// Bytes of a record packed for another node: header, then payload (multiples of 16).
#ifdef __CUDACC__
__host__ __device__
#endif
inline std::size_t lsa_remote_record_bytes(const LsaArgs& a) {
  return static_cast<std::size_t>(a.shape.header_bytes) + a.shape.f.payload_stride;
}

}  // namespace commsweep::ep::kernels
