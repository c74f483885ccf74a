// NCCL's profiler plugin interface, as far as commsweep's plugin uses it: the descriptors of
// the task events (collective, point-to-point, copy-engine collective) and of the kernel channel
// events, the kernel channel's stop state, and the function tables
// of interface versions 4, 5 and 6, declared from NCCL's documented headers
// (src/include/plugin/profiler/profiler_v4.h, _v5.h, _v6.h and plugin/nccl_profiler.h of the
// NCCL repository). Layouts must match NCCL's exactly: only the members up to the last one
// this plugin reads are declared in each union member, the rest of the union is padding that
// NCCL's larger members fill. No NCCL header is included: the plugin builds and is tested
// without NCCL.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commsweep::nccl_profiler {

using Result = int;  // ncclResult_t: 0 is ncclSuccess
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* format, ...);

// Event type bits (nccl_profiler.h): which events NCCL starts, as set in the activation mask.
constexpr std::uint64_t kEventColl = 1u << 1;
constexpr std::uint64_t kEventP2p = 1u << 2;
constexpr std::uint64_t kEventKernelCh = 1u << 6;
constexpr std::uint64_t kEventCeColl = 1u << 12;  // version 6

// recordEventState's state for a kernel channel's end (ncclProfilerKernelChStop, the same value
// in versions 4, 5 and 6).
constexpr int kStateKernelChStop = 22;

// The members "coll" (versions 4, 5, 6) and "ceColl" (version 6) begin with.
struct TaskHead {
  std::uint64_t seq_number;
  const char* func;
  const void* send_buffer;
  void* recv_buffer;
  std::size_t count;
  int root;
  const char* datatype;
};

struct CollTask {  // "coll" of versions 4, 5 and 6 (5 and 6 append a parent group pointer)
  TaskHead head;
  std::uint8_t channels;
  std::uint8_t warps;
  const char* algorithm;
  const char* protocol;
};

struct P2pTask {  // "p2p" of versions 4, 5 and 6
  const char* func;
  void* buffer;
  const char* datatype;
  std::size_t count;
  int peer;
  std::uint8_t channels;
};

struct CeCollTask {  // "ceColl" of version 6
  TaskHead head;
  const char* sync_strategy;
};

struct KernelChannel {  // "kernelCh" of versions 4, 5 and 6: a channel's start of a task
  std::uint8_t channel;
  std::uint64_t gpu_timer_ns;  // "pTimer": the GPU's %globaltimer when the channel started
};

// The descriptor's union is as large as NCCL's largest member; this one reserves more.
union TaskUnion {
  CollTask coll;
  P2pTask p2p;
  CeCollTask ce_coll;
  KernelChannel kernel_channel;
  unsigned char room[256];
};

struct DescriptorV4 {  // version 4 (NCCL 2.27): the type is one byte
  std::uint8_t type;
  void* parent;
  int rank;
  TaskUnion task;
};

struct DescriptorV5 {  // versions 5 and 6 (NCCL 2.28 on): the type is 64 bits
  std::uint64_t type;
  void* parent;
  int rank;
  TaskUnion task;
};

// recordEventState's arguments (ncclProfilerEventStateArgs_v4/_v5_t, version 6 uses v5's): a
// union of 8 bytes whose member "kernelCh" holds a channel's stop time; the others are not read.
struct StateArgs {
  std::uint64_t kernel_channel_stop_ns;  // "kernelCh.pTimer": the GPU's %globaltimer
};

struct ProfilerV4 {
  const char* name;
  Result (*init)(void** context, int* activation_mask, const char* comm_name, std::uint64_t comm_hash, int nodes,
                 int ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescriptorV4* descriptor);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

struct ProfilerV5 {  // version 6 has the same table with its wider descriptor
  const char* name;
  Result (*init)(void** context, std::uint64_t comm_id, int* activation_mask, const char* comm_name, int nodes,
                 int ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescriptorV5* descriptor);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

// The offsets NCCL's own declarations give on LP64 (x86-64, aarch64): a member moved here by a
// mistake fails the build, not a run.
static_assert(offsetof(DescriptorV4, task) == 24 && offsetof(DescriptorV5, task) == 24, "descriptor header");
static_assert(offsetof(TaskHead, count) == 32 && offsetof(TaskHead, datatype) == 48 && sizeof(TaskHead) == 56,
              "coll and ceColl: count, datatype");
static_assert(offsetof(CollTask, channels) == 56 && offsetof(CollTask, algorithm) == 64 &&
                  offsetof(CollTask, protocol) == 72,
              "coll: channels, algo, proto");
static_assert(offsetof(P2pTask, count) == 24 && offsetof(P2pTask, channels) == 36, "p2p: count, channels");
static_assert(offsetof(CeCollTask, sync_strategy) == 56, "ceColl: syncStrategy");
static_assert(offsetof(KernelChannel, gpu_timer_ns) == 8, "kernelCh: pTimer");

}  // namespace commsweep::nccl_profiler
