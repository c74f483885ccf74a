// Device-side ordering for the lsa kernels (kernels/ep_lsa.cu and its variants), included
// through their stages (kernels/ep_lsa_stages.cuh):
// the per-piece flags that let a receiver work while stores still arrive, the epoch they
// carry, the work queue receivers take pieces from, and the kernel's clock and SM marks.
//
// Flags. A warp that stored a piece (2 or 2.5 KiB of a token: LsaArgs::shape.segment_bytes, or 1024
// elements of a partial) into a peer's window writes the launch's epoch into that piece's flag
// there, after __syncwarp and a release fence at system scope: every lane's stores before the flag, the
// pattern of NCCL's own protocols and of DeepEP (a barrier, then one thread's release). The
// fence waits for the warp's stores to land, so a warp publishes several pieces' flags after
// one fence (FlagBatch). The receiver spins on each flag with ld.acquire.sys in one lane (a lane a flag,
// all at once), then __syncwarp, which orders those acquires before every lane's reads of the
// pieces. Spinning is safe because the kernels are cooperative launches (every block
// resident) and the warps that store never wait on anything.
//
// Marks. Where the combine's pieces are small (one node, few tokens: lsa_combine_marked), a
// partial is its own flag: the partials buffer holds all ones (kLsaUnset) until a partial
// lands, and a partial never has an all-ones bf16 half. The sender stores with no fence and no
// flag; the reader loads each 16 bytes it needs with ld.relaxed.sys (not from L1, and several
// in flight), polls until every half is written (until_landed, lsa_partial_landed), sums, and stores the ones back
// for the next launch. A sender writes each 16 bytes once a launch, so nothing lands
// after the reader has seen them whole.
// A marked dispatch (one node, few tokens: LsaArgs::schedule.dispatch_marked) does the same with its
// records: no 32-bit word of a header or payload is all ones (lsa_word_landed), so the
// receiver polls a record's header, then each piece at its first place, and copies it on as
// it lands; no flags, no fences. What it reads stays for the experts, the check and the
// combine, so the marks are set again one launch later: launch k fills region k % 2 of the
// headers and grouped buffer, and the receiver's warps of launch k first set back to all ones
// the headers and first places that the peers filled in the other region in launch k - 1.
// Every launch of a case fills the same places (the routing is the case's), so the first
// places polled in launch k + 1 are the ones set back. A peer's stores into that region come
// in its launch k + 1, after its combine k, which ends only once this rank's partials of
// combine k landed, sent after this rank's dispatch k ended (the same chain as the epochs'
// below).
//
// Epochs. Flags are never cleared between launches: launch k of a kernel writes and waits for
// k (LsaArgs::signals.sync[kLsaEpoch + kernel] + 1, read by every block at its start). The last block to
// finish moves the epoch on, after every block has read it. The host zeroes flags and sync
// words at each case on every rank, and every rank launches each kernel equally often, so
// every rank's epoch is the same at each launch; a flag holding an older epoch (or 0) is not
// yet written. A peer's stores of launch k + 1 cannot overtake this rank's reads of launch k,
// since every rank launches the two kernels in turn (dispatch, combine, dispatch, ...): a
// peer's dispatch k + 1 follows its combine k, which ends only once every partial this rank
// sends it in combine k has landed, and this rank sends each after reading its header, after
// its own dispatch k and the experts; a peer's combine k + 1 follows its dispatch k + 1, which
// waits for this rank's records of launch k + 1, sent after this rank's combine k (and the
// reduction's reads, and its marks set back) ended.
#pragma once

#include <cstdint>

#include "ep_lsa.hpp"

namespace commsweep::ep::kernels {

enum LsaKernel { kDispatchKernel = 0, kCombineKernel = 1 };

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The kernel's span (LsaArgs::timing.clock): when its first block started; which SMs ran a block.
__device__ inline void clock_start(const LsaArgs& a) {
  if (threadIdx.x != 0) return;
  atomicMin(&a.timing.clock[0], global_ns());
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (sm < 64u * kLsaSmWords) atomicOr(&a.timing.clock[kLsaClockSlots + sm / 64], 1ull << (sm % 64));
}
// When the last block finished stage k (every thread of the block calls it).
__device__ inline void clock_mark(const LsaArgs& a, int k) {
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&a.timing.clock[2 + k], global_ns());
}
// When the last warp finished stage k (lane 0 of each warp that ran it).
__device__ inline void clock_mark_warp(const LsaArgs& a, int k, int lane) {
  if (lane == 0) atomicMax(&a.timing.clock[2 + k], global_ns());
}

// This launch's epoch: what its flags carry.
__device__ inline unsigned launch_epoch(const LsaArgs& a, LsaKernel kernel) {
  return *reinterpret_cast<volatile unsigned*>(&a.signals.sync[kLsaEpoch + kernel]) + 1u;
}

// The block's end: the kernel's end mark; the last block to finish (every block has read the
// epoch and taken its last queue item) moves the epoch on and clears the count and the queue
// for the next launch, which starts after this one ends (same stream).
__device__ inline void finish(const LsaArgs& a, LsaKernel kernel) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  atomicMax(&a.timing.clock[1], global_ns());
  __threadfence();
  if (atomicAdd(&a.signals.sync[kLsaFinished + kernel], 1u) == gridDim.x - 1) {
    a.signals.sync[kLsaFinished + kernel] = 0;
    a.signals.sync[kLsaQueue + kernel] = 0;
    a.signals.sync[kLsaEpoch + kernel] += 1;
    __threadfence();
  }
}

// Items [0, count) of the kernel's work queue, taken in order by whichever warp is free:
// work(item) for each the warp takes. While more items are left than the grid has warps, the
// next item is asked for (an atomic on L2, about a microsecond) while the current one is worked
// on; near the end a warp asks only once it is free, so that the last items go to warps that
// are free (the storing warps that join), not to one that would hold two in a row.
template <class Work>
__device__ void for_each_item(const LsaArgs& a, LsaKernel kernel, int count, int lane, Work work) {
  unsigned* queue = &a.signals.sync[kLsaQueue + kernel];
  const int warps = static_cast<int>(gridDim.x * (blockDim.x / 32));
  unsigned item = 0;
  if (lane == 0) item = atomicAdd(queue, 1u);
  int q = static_cast<int>(__shfl_sync(0xffffffffu, item, 0));
  while (q < count) {
    const bool ahead = q + warps < count;
    unsigned next = 0;
    if (ahead && lane == 0) next = atomicAdd(queue, 1u);
    work(q);
    if (!ahead && lane == 0) next = atomicAdd(queue, 1u);
    q = static_cast<int>(__shfl_sync(0xffffffffu, next, 0));
  }
}

// The flags of pieces a warp stored, published together: the release fence (which waits until
// the warp's stores, over NVLink too, have landed) once for up to `limit` pieces, not once a
// piece. `slots` is the warp's room for kLsaFlagBatchMax flag addresses in shared memory.
struct FlagBatch {
  unsigned** slots;
  int limit;
  unsigned epoch;
  int count = 0;
};
// After every lane's stores of the batch's pieces: one fence, then the flags.
__device__ inline void flush(FlagBatch& b, int lane) {
  __syncwarp();
  if (lane == 0 && b.count > 0) {
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    for (int k = 0; k < b.count; ++k) {
      asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(b.slots[k]), "r"(b.epoch) : "memory");
    }
  }
  b.count = 0;
}
// After the warp's stores of a piece: its flag, published with the batch.
__device__ inline void publish(FlagBatch& b, unsigned* flag, int lane) {
  if (lane == 0) b.slots[b.count] = flag;
  if (++b.count == b.limit) flush(b, lane);
}

// Every lane: until the piece behind `flag` has landed; its reads after this see it. A short
// sleep between polls leaves the SM's issue slots and L2 requests to the warps that store.
__device__ inline void wait_for(const unsigned* flag, unsigned epoch) {
  for (;;) {
    unsigned seen;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    if (seen == epoch) return;
    __nanosleep(32);
  }
}

// 16 bytes of a peer's stores, bypassing L1 (a poll must see new values), not ordered with
// anything else: the value itself says whether it has landed (marks, above).
__device__ inline uint4 load_relaxed(const void* p) {
  uint4 v;
  asm volatile("ld.relaxed.sys.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
// The 16 bytes at p once every 32-bit word of them has landed (`landed`: lsa_partial_landed for
// partials, lsa_word_landed for a dispatch's records), given their first load v.
template <class Landed>
__device__ inline uint4 until_landed(const void* p, uint4 v, Landed landed) {
  while (!landed(v.x) || !landed(v.y) || !landed(v.z) || !landed(v.w)) {
    __nanosleep(32);
    v = load_relaxed(p);
  }
  return v;
}
// The 16 bytes at p unset again (all ones), for the next launch's marks.
__device__ inline void unset16(void* p) {
  *reinterpret_cast<uint4*>(p) = make_uint4(kLsaUnset, kLsaUnset, kLsaUnset, kLsaUnset);
}

// load_relaxed's 32-bit form.
__device__ inline std::uint32_t load_relaxed_u32(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// A marked record's word, once it has landed (relaxed loads at system scope: not from L1).
__device__ inline std::uint32_t until_word_landed(const std::uint32_t* p) {
  for (;;) {
    const std::uint32_t v = load_relaxed_u32(p);
    if (lsa_word_landed(v)) return v;
    __nanosleep(32);
  }
}

}  // namespace commsweep::ep::kernels
