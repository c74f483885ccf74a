// commsweep's NCCL profiler plugin (libcommsweep-nccl-profiler.so): NCCL loads it where
// NCCL_PROFILER_PLUGIN names it (commsweep sets that variable itself: comm/nccl_profiler_reader.hpp)
// and tells it, for every collective it launches, the algorithm, protocol and channels its tuner
// chose, the same choice its TUNING INFO lines print. The plugin keeps the last kHeld of them;
// commsweep, in the same process, reads them through records.h's functions.
//
// It asks NCCL for the task events only (collective, point-to-point, copy-engine collective) and
// returns no event handle, so NCCL starts no child events (proxy, kernel) and never stops one:
// one call and one copy under a mutex per task. It exports the tables of interface versions 6, 5
// and 4; NCCL takes the newest it knows (2.28 looks up 5 first, 2.30 and 2.32 look up 6 after
// their own newer ones, 2.27 knows 4).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "nccl_profiler/abi.hpp"
#include "nccl_profiler/records.h"

namespace commsweep::nccl_profiler {
namespace {

// Records held: a sweep reads them after each timed run of at most -n iterations; 4096 keeps
// every record of a run of up to 4096 iterations (nccl-tests' and commsweep's default is 20).
constexpr std::size_t kHeld = 4096;

struct Store {
  std::mutex mutex;
  commsweep_nccl_record ring[kHeld];
  std::uint64_t recorded = 0;
};

Store& store() {
  static Store s;
  return s;
}

void copy_text(char* to, std::size_t room, const char* from) {
  std::strncpy(to, from != nullptr ? from : "", room - 1);
  to[room - 1] = '\0';
}

void keep(commsweep_nccl_record r) {
  Store& s = store();
  const std::lock_guard<std::mutex> lock(s.mutex);
  r.sequence = ++s.recorded;
  s.ring[(r.sequence - 1) % kHeld] = r;
}

void record_task(std::uint64_t type, const TaskUnion& t, int version) {
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
    return;
  }
  keep(r);
}

// Any non-null context: the plugin keeps one store per process whatever the communicators.
int g_context_tag = 0;

Result init_v4(void** context, int* mask, const char*, std::uint64_t, int, int, int, Logger) {
  *context = &g_context_tag;
  *mask = static_cast<int>(kEventColl | kEventP2p);
  return 0;
}

Result init_v5(void** context, std::uint64_t, int* mask, const char*, int, int, int, Logger) {
  *context = &g_context_tag;
  *mask = static_cast<int>(kEventColl | kEventP2p);
  return 0;
}

Result init_v6(void** context, std::uint64_t, int* mask, const char*, int, int, int, Logger) {
  *context = &g_context_tag;
  *mask = static_cast<int>(kEventColl | kEventP2p | kEventCeColl);
  return 0;
}

Result start_v4(void*, void** handle, DescriptorV4* d) {
  *handle = nullptr;  // no handle: NCCL starts no child event and stops none
  record_task(d->type, d->task, 4);
  return 0;
}

Result start_v5(void*, void** handle, DescriptorV5* d) {
  *handle = nullptr;
  record_task(d->type, d->task, 5);
  return 0;
}

Result start_v6(void*, void** handle, DescriptorV5* d) {
  *handle = nullptr;
  record_task(d->type, d->task, 6);
  return 0;
}

Result stop_event(void*) { return 0; }
Result record_event_state(void*, int, StateArgs*) { return 0; }
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
