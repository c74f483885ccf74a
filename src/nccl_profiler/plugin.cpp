// commsweep's NCCL profiler plugin (libcommsweep-nccl-profiler.so): NCCL loads it where
// NCCL_PROFILER_PLUGIN names it (commsweep sets that variable itself: comm/nccl_profiler_reader.hpp)
// and tells it, for every collective it launches, the algorithm, protocol and channels its tuner
// chose, the same choice its TUNING INFO lines print. The plugin keeps the last kHeld of them;
// commsweep, in the same process, reads them through records.h's functions.
//
// It asks NCCL for the task events (collective, point-to-point, copy-engine collective): one
// call and one copy under a mutex per task, while commsweep has them on
// (commsweep_nccl_task_events: only in the runs that record NCCL's choice, never the table's).
// Where commsweep times every iteration
// (commsweep_nccl_time_kernels before the communicator's init) it asks for the kernel channel
// events too: NCCL's kernel then writes the GPU's %globaltimer when each channel starts and ends
// the task, and NCCL's proxy thread hands both over; the task's handle, a slot of this plugin's
// ring, takes them in. Otherwise it returns no handle, so NCCL starts no child events (proxy,
// kernel) and never stops one. It exports the tables of interface versions 6, 5 and 4; NCCL
// takes the newest it knows (2.28 looks up 5 first, 2.30 and 2.32 look up 6 after their own
// newer ones, 2.27 knows 4).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "nccl_profiler/abi.hpp"
#include "nccl_profiler/records.h"

namespace commsweep::nccl_profiler {
namespace {

// Records held (COMMSWEEP_NCCL_RECORDS_HELD): a sweep reads them after each timed run of at most
// -n iterations. 16384 (3 MiB) keeps every task of a run of up to 16384 collectives, or of 1024
// iterations of an alltoall of 8 ranks (14 send and receive tasks each); nccl-tests' and
// commsweep's default -n is 20. The nccl backend reads the kernels' times only where a run's
// tasks all fit.
constexpr std::size_t kHeld = COMMSWEEP_NCCL_RECORDS_HELD;

// A task's event handle: the sequence of the record its kernel channel events go to. A slot
// is reused kHeld tasks later; an event for an older sequence is then dropped.
struct TaskHandle {
  std::uint64_t sequence = 0;
};

struct Store {
  std::mutex mutex;
  commsweep_nccl_record ring[kHeld];
  TaskHandle handles[kHeld];
  std::uint64_t recorded = 0;
  bool time_kernels = false;   // asked for by commsweep before the init
  bool kernels_timed = false;  // the last init asked NCCL for the kernel channel events
  // NCCL's event mask, whose address every init is handed (one per process: NCCL 2.23 to 2.32
  // read it as each group and task is enqueued), the task events an init asked for, and whether
  // they are on now (commsweep_nccl_task_events): off, NCCL starts no event of the plugin's.
  int* nccl_mask = nullptr;
  int tasks = 0;
  bool task_events = true;
};

Store& store() {
  static Store s;
  return s;
}

void copy_text(char* to, std::size_t room, const char* from) {
  std::strncpy(to, from != nullptr ? from : "", room - 1);
  to[room - 1] = '\0';
}

// Keeps R; returns the handle of its slot where the kernels are timed, else null (no child
// events).
void* keep(commsweep_nccl_record r) {
  Store& s = store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  r.sequence = ++s.recorded;
  const std::size_t slot = (r.sequence - 1) % kHeld;
  s.ring[slot] = r;
  if (!s.kernels_timed) return nullptr;
  s.handles[slot].sequence = r.sequence;
  return &s.handles[slot];
}

// The record a kernel channel event's handle (a task's) stands for, or null once its slot was
// reused. Under the store's mutex.
commsweep_nccl_record* record_of(Store& s, const void* handle) {
  const auto at = reinterpret_cast<std::uintptr_t>(handle);
  const auto first = reinterpret_cast<std::uintptr_t>(s.handles);
  if (at < first || at >= first + sizeof(s.handles)) return nullptr;  // not a task's handle
  const auto* h = static_cast<const TaskHandle*>(handle);
  commsweep_nccl_record& r = s.ring[(h->sequence - 1) % kHeld];
  return h->sequence != 0 && r.sequence == h->sequence ? &r : nullptr;
}

// A channel of the task whose handle is TASK started (STARTED) or stopped at NS: the latest of
// each is kept (records.h says why the latest start) and the channels counted. False where the
// handle stands for no record (its slot reused, or no task's).
bool kernel_channel(const void* task, bool started, std::uint64_t ns) {
  Store& s = store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  commsweep_nccl_record* r = record_of(s, task);
  if (r == nullptr) return false;
  std::uint64_t& latest = started ? r->gpu_start_ns : r->gpu_stop_ns;
  if (ns > latest) latest = ns;
  ++(started ? r->kernel_channels_started : r->kernel_channels_stopped);
  return true;
}

void* record_task(std::uint64_t type, const TaskUnion& t, int version) {
  commsweep_nccl_record r{};
  r.profiler_version = version;
  if (type == kEventColl) {
    r.task = COMMSWEEP_NCCL_COLL;
    r.count = t.coll.head.count;
    r.channels = t.coll.channels;
    copy_text(r.func, sizeof(r.func), t.coll.head.func);
    copy_text(r.datatype, sizeof(r.datatype), t.coll.head.datatype);
    copy_text(r.algorithm, sizeof(r.algorithm), t.coll.algorithm);
    copy_text(r.protocol, sizeof(r.protocol), t.coll.protocol);
  } else if (type == kEventP2p) {
    r.task = COMMSWEEP_NCCL_P2P;
    r.count = t.p2p.count;
    r.channels = t.p2p.channels;
    copy_text(r.func, sizeof(r.func), t.p2p.func);
    copy_text(r.datatype, sizeof(r.datatype), t.p2p.datatype);
  } else if (type == kEventCeColl) {
    r.task = COMMSWEEP_NCCL_CE_COLL;
    r.count = t.ce_coll.head.count;
    copy_text(r.func, sizeof(r.func), t.ce_coll.head.func);
    copy_text(r.datatype, sizeof(r.datatype), t.ce_coll.head.datatype);
    copy_text(r.algorithm, sizeof(r.algorithm), "CE");
    copy_text(r.protocol, sizeof(r.protocol), t.ce_coll.sync_strategy);
  } else {
    return nullptr;
  }
  return keep(r);
}

// A task event (kept, its handle returned) or a kernel channel's start.
void start(void* parent, std::uint64_t type, const TaskUnion& t, int version, void** handle) {
  if (type == kEventKernelCh) {
    // The channel's handle is its task's, so that its stop finds the same record.
    *handle = kernel_channel(parent, /*started=*/true, t.kernel_channel.gpu_timer_ns) ? parent : nullptr;
    return;
  }
  *handle = record_task(type, t, version);
}

// NCCL's mask: the task events while they are on, and the kernel channel events where commsweep
// asked for them (never turned off: NCCL 2.28.9 lost their timestamps and hung at the
// communicator's end when they were). Under the store's mutex.
int current_mask(const Store& s) {
  return (s.task_events ? s.tasks : 0) | (s.kernels_timed ? static_cast<int>(kEventKernelCh) : 0);
}

// Sets NCCL's mask at MASK for an init that takes TASKS, and keeps MASK for
// commsweep_nccl_task_events.
void activate(int* mask, std::uint64_t tasks) {
  Store& s = store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.kernels_timed = s.time_kernels;  // commsweep asks the same for each of its communicators
  s.nccl_mask = mask;
  s.tasks = static_cast<int>(tasks);
  __atomic_store_n(mask, current_mask(s), __ATOMIC_RELAXED);
}

// Any non-null context: the plugin keeps one store per process whatever the communicators.
int g_context_tag = 0;

Result init_v4(void** context, int* mask, const char*, std::uint64_t, int, int, int, Logger) {
  *context = &g_context_tag;
  activate(mask, kEventColl | kEventP2p);
  return 0;
}

Result init_v5(void** context, std::uint64_t, int* mask, const char*, int, int, int, Logger) {
  *context = &g_context_tag;
  activate(mask, kEventColl | kEventP2p);
  return 0;
}

Result init_v6(void** context, std::uint64_t, int* mask, const char*, int, int, int, Logger) {
  *context = &g_context_tag;
  activate(mask, kEventColl | kEventP2p | kEventCeColl);
  return 0;
}

Result start_v4(void*, void** handle, DescriptorV4* d) {
  start(d->parent, d->type, d->task, 4, handle);
  return 0;
}

Result start_v5(void*, void** handle, DescriptorV5* d) {
  start(d->parent, d->type, d->task, 5, handle);
  return 0;
}

Result start_v6(void*, void** handle, DescriptorV5* d) {
  start(d->parent, d->type, d->task, 6, handle);
  return 0;
}

// A task's stop comes right after its launch, before its kernel ran: nothing to do. A kernel
// channel's end comes as its state, then its stop.
Result stop_event(void*) { return 0; }
Result record_event_state(void* handle, int state, StateArgs* args) {
  if (state == kStateKernelChStop && args != nullptr) kernel_channel(handle, /*started=*/false, args->kernel_channel_stop_ns);
  return 0;
}
Result finalize(void*) { return 0; }

constexpr const char* kName = "commsweep";

}  // namespace
}  // namespace commsweep::nccl_profiler

namespace np = commsweep::nccl_profiler;

extern "C" {

__attribute__((visibility("default"))) np::ProfilerV4 ncclProfiler_v4{
    np::kName, np::init_v4, np::start_v4, np::stop_event, np::record_event_state, np::finalize};
__attribute__((visibility("default"))) np::ProfilerV5 ncclProfiler_v5{
    np::kName, np::init_v5, np::start_v5, np::stop_event, np::record_event_state, np::finalize};
__attribute__((visibility("default"))) np::ProfilerV5 ncclProfiler_v6{
    np::kName, np::init_v6, np::start_v6, np::stop_event, np::record_event_state, np::finalize};

__attribute__((visibility("default"))) int commsweep_nccl_records_abi(void) { return COMMSWEEP_NCCL_RECORDS_ABI; }

__attribute__((visibility("default"))) uint64_t commsweep_nccl_recorded(void) {
  np::Store& s = np::store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return s.recorded;
}

__attribute__((visibility("default"))) void commsweep_nccl_time_kernels(int on) {
  np::Store& s = np::store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.time_kernels = on != 0;
}

__attribute__((visibility("default"))) void commsweep_nccl_task_events(int on) {
  np::Store& s = np::store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.task_events = on != 0;
  if (s.nccl_mask != nullptr) __atomic_store_n(s.nccl_mask, np::current_mask(s), __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) int commsweep_nccl_kernels_timed(void) {
  np::Store& s = np::store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return s.kernels_timed ? 1 : 0;
}

__attribute__((visibility("default"))) int commsweep_nccl_records_since(uint64_t after, commsweep_nccl_record* out,
                                                                        int max) {
  np::Store& s = np::store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const std::uint64_t oldest = s.recorded > np::kHeld ? s.recorded - np::kHeld + 1 : 1;
  int n = 0;
  for (std::uint64_t seq = std::max(after + 1, oldest); seq <= s.recorded && n < max; ++seq) {
    out[n++] = s.ring[(seq - 1) % np::kHeld];
  }
  return n;
}

}  // extern "C"
