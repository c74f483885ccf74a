// commsweep's NCCL profiler plugin as NCCL drives it (src/nccl_profiler/): the built
// libcommsweep-nccl-profiler.so opened as NCCL opens it, its ncclProfiler_v4/_v5/_v6 tables
// looked up by name, init and startEvent called with task descriptors laid out as NCCL's headers
// declare them (abi.hpp, its offsets checked at compile time), and the records read back through
// comm/nccl_profiler_reader as the nccl backend reads them. No NCCL, no GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "comm/nccl_profiler_reader.hpp"
#include "nccl_profiler/abi.hpp"

namespace commsweep {
namespace {

namespace np = nccl_profiler;

np::DescriptorV5 coll(const char* func, std::size_t count, const char* algo, const char* proto, int channels) {
  np::DescriptorV5 d{};
  d.type = np::kEventColl;
  d.task.coll.head.func = func;
  d.task.coll.head.count = count;
  d.task.coll.head.datatype = "ncclFloat32";
  d.task.coll.channels = static_cast<std::uint8_t>(channels);
  d.task.coll.algorithm = algo;
  d.task.coll.protocol = proto;
  return d;
}

class NcclProfilerPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    records = NcclProfilerRecords(COMMSWEEP_NCCL_PROFILER_PATH);
    ASSERT_TRUE(records.available()) << records.why_not();
    // NCCL's own lookup: dlopen of NCCL_PROFILER_PLUGIN, then dlsym("ncclProfiler_vN").
    nccl_handle = dlopen(COMMSWEEP_NCCL_PROFILER_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(nccl_handle, nullptr);
  }
  void TearDown() override {
    if (nccl_handle != nullptr) dlclose(nccl_handle);
  }
  template <typename Table>
  Table* table(const char* symbol) {
    return static_cast<Table*>(dlsym(nccl_handle, symbol));
  }
  NcclProfilerRecords records;
  void* nccl_handle = nullptr;
};

TEST_F(NcclProfilerPlugin, ExportsTheTablesNcclLooksUp) {
  for (const char* symbol : {"ncclProfiler_v4", "ncclProfiler_v5", "ncclProfiler_v6"}) {
    const auto* t = table<np::ProfilerV5>(symbol);
    ASSERT_NE(t, nullptr) << symbol;
    EXPECT_STREQ(t->name, "commsweep");
  }
  // NCCL 2.32 looks up v7 first (none here) and takes v6.
  EXPECT_EQ(dlsym(nccl_handle, "ncclProfiler_v7"), nullptr);
}

TEST_F(NcclProfilerPlugin, AsksForTaskEventsOnlyAndRecordsEachCollective) {
  auto* v5 = table<np::ProfilerV5>("ncclProfiler_v5");
  void* context = nullptr;
  int mask = 0;
  records.time_kernels(false);
  ASSERT_EQ(v5->init(&context, 0x1234, &mask, "comm", 1, 4, 0, nullptr), 0);
  EXPECT_EQ(mask, static_cast<int>(np::kEventColl | np::kEventP2p));
  const std::uint64_t mark = records.mark();
  for (int i = 0; i < 19; ++i) {
    np::DescriptorV5 d = coll("AllReduce", 262144, "RING", "LL128", 16);
    void* handle = reinterpret_cast<void*>(1);
    ASSERT_EQ(v5->start_event(context, &handle, &d), 0);
    EXPECT_EQ(handle, nullptr);  // no handle: NCCL starts no child events and stops none
  }
  np::DescriptorV5 other = coll("AllReduce", 262144, "TREE", "LL", 8);
  void* handle = nullptr;
  v5->start_event(context, &handle, &other);
  const auto got = records.since(mark);
  ASSERT_EQ(got.size(), 20u);
  EXPECT_STREQ(got[0].func, "AllReduce");
  EXPECT_STREQ(got[0].datatype, "ncclFloat32");
  EXPECT_EQ(got[0].count, 262144u);
  EXPECT_EQ(got[0].profiler_version, 5);
  const report::NcclChoice c = nccl_choice_of(got);
  EXPECT_EQ(c.algorithm, "RING");
  EXPECT_EQ(c.protocol, "LL128");
  EXPECT_EQ(c.channels, 16);
  EXPECT_EQ(c.source, "profiler: 19 of 20 tasks chose this");
  EXPECT_EQ(v5->finalize(context), 0);
}

TEST_F(NcclProfilerPlugin, VersionFourAndSixAndSendReceiveTasks) {
  auto* v4 = table<np::ProfilerV4>("ncclProfiler_v4");
  auto* v6 = table<np::ProfilerV5>("ncclProfiler_v6");
  void* context = nullptr;
  int mask = 0;
  records.time_kernels(false);
  ASSERT_EQ(v4->init(&context, &mask, "comm", 0x1234, 1, 2, 0, nullptr), 0);
  const std::uint64_t mark = records.mark();
  np::DescriptorV4 d4{};
  d4.type = static_cast<std::uint8_t>(np::kEventColl);
  d4.task.coll.head.func = "AllGather";
  d4.task.coll.algorithm = "RING";
  d4.task.coll.protocol = "SIMPLE";
  d4.task.coll.channels = 8;
  void* handle = nullptr;
  v4->start_event(context, &handle, &d4);
  ASSERT_EQ(v6->init(&context, 1, &mask, "comm", 1, 2, 0, nullptr), 0);
  EXPECT_EQ(mask, static_cast<int>(np::kEventColl | np::kEventP2p | np::kEventCeColl));
  for (int channels : {2, 4}) {
    np::DescriptorV5 p{};
    p.type = np::kEventP2p;
    p.task.p2p.func = channels == 2 ? "Send" : "Recv";
    p.task.p2p.count = 1024;
    p.task.p2p.channels = static_cast<std::uint8_t>(channels);
    v6->start_event(context, &handle, &p);
  }
  const auto got = records.since(mark);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].profiler_version, 4);
  EXPECT_STREQ(got[0].algorithm, "RING");
  EXPECT_EQ(got[1].task, COMMSWEEP_NCCL_P2P);
  EXPECT_EQ(got[2].profiler_version, 6);
  const report::NcclChoice sendrecv = nccl_choice_of({got[1], got[2]});
  EXPECT_EQ(sendrecv.algorithm, "P2P");
  EXPECT_EQ(sendrecv.channels, 4);  // the most over the tasks
  EXPECT_EQ(nccl_choice_of({}).algorithm, "unknown (no NCCL task recorded)");
}

// The task events off and on again after the init, in NCCL's own mask (NCCL reads it as it
// enqueues each group and task): the table's pass runs with them off (issue 40).
TEST_F(NcclProfilerPlugin, TurnsTheTaskEventsOffAndOnInNcclsMask) {
  auto* v6 = table<np::ProfilerV5>("ncclProfiler_v6");
  void* context = nullptr;
  static int mask = 0;  // NCCL's is a global the plugin keeps the address of
  records.time_kernels(false);
  ASSERT_EQ(v6->init(&context, 1, &mask, "comm", 1, 2, 0, nullptr), 0);
  const int tasks = static_cast<int>(np::kEventColl | np::kEventP2p | np::kEventCeColl);
  EXPECT_EQ(mask, tasks);
  records.task_events(false);
  EXPECT_EQ(mask, 0);
  // An init while they are off (a communicator split off for EP) leaves them off.
  ASSERT_EQ(v6->init(&context, 1, &mask, "comm", 1, 2, 0, nullptr), 0);
  EXPECT_EQ(mask, 0);
  records.task_events(true);
  EXPECT_EQ(mask, tasks);
  // Where the kernels are timed, their events stay whatever the task events.
  records.time_kernels(true);
  ASSERT_EQ(v6->init(&context, 1, &mask, "comm", 1, 2, 0, nullptr), 0);
  records.task_events(false);
  EXPECT_EQ(mask, static_cast<int>(np::kEventKernelCh));
  records.task_events(true);
  EXPECT_EQ(mask, tasks | static_cast<int>(np::kEventKernelCh));
  records.time_kernels(false);
}

// A kernel channel's start as NCCL's proxy thread reports it (ncclProfilerStartKernelChEvent):
// the parent is the task's handle, the time the GPU's %globaltimer the kernel wrote.
np::DescriptorV5 kernel_channel(void* task, int channel, std::uint64_t start_ns) {
  np::DescriptorV5 d{};
  d.type = np::kEventKernelCh;
  d.parent = task;
  d.task.kernel_channel.channel = static_cast<std::uint8_t>(channel);
  d.task.kernel_channel.gpu_timer_ns = start_ns;
  return d;
}

TEST_F(NcclProfilerPlugin, TimesEachTasksKernelChannelsWhereAsked) {
  auto* v5 = table<np::ProfilerV5>("ncclProfiler_v5");
  void* context = nullptr;
  int mask = 0;
  records.time_kernels(true);
  ASSERT_EQ(v5->init(&context, 7, &mask, "comm", 1, 4, 0, nullptr), 0);
  EXPECT_EQ(mask, static_cast<int>(np::kEventColl | np::kEventP2p | np::kEventKernelCh));
  EXPECT_TRUE(records.kernels_timed());
  const std::uint64_t mark = records.mark();
  // Three all_reduce iterations of two channels each, iteration i's kernel from 1000 + 100 i:
  // channel 1 runs 2 to 50 ns after it; channel 0 reports its previous work, 100 ns earlier (as
  // NCCL 2.28.9 pairs a channel whose host and device counters differ: records.h).
  std::vector<void*> tasks;
  for (int i = 0; i < 3; ++i) {
    np::DescriptorV5 d = coll("AllReduce", 1024, "RING", "LL", 2);
    void* task = nullptr;
    ASSERT_EQ(v5->start_event(context, &task, &d), 0);
    ASSERT_NE(task, nullptr);  // a handle: NCCL starts the kernel channel events under it
    EXPECT_EQ(v5->stop_event(task), 0);  // stopped at launch, before the kernel ran
    tasks.push_back(task);
  }
  EXPECT_FALSE(kernel_iteration_times(records.since(mark), 3).complete);  // no channel reported yet
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t base = 1000 + 100 * static_cast<std::uint64_t>(i);
    for (int channel : {0, 1}) {
      const std::uint64_t start = channel == 0 ? base - 100 : base + 2;
      np::DescriptorV5 d = kernel_channel(tasks[static_cast<std::size_t>(i)], channel, start);
      void* handle = nullptr;
      ASSERT_EQ(v5->start_event(context, &handle, &d), 0);
      ASSERT_NE(handle, nullptr);
      np::StateArgs stop{channel == 0 ? base - 100 + 49 : base + 50};
      ASSERT_EQ(v5->record_event_state(handle, np::kStateKernelChStop, &stop), 0);
      ASSERT_EQ(v5->stop_event(handle), 0);
    }
    if (i == 1) {
      EXPECT_FALSE(kernel_iteration_times(records.since(mark), 3).complete);  // iteration 2 to come
    }
  }
  const auto got = records.since(mark);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].gpu_start_ns, 1002u);  // the latest channel's start
  EXPECT_EQ(got[0].gpu_stop_ns, 1050u);
  EXPECT_EQ(got[0].kernel_channels_started, 2);
  EXPECT_EQ(got[0].kernel_channels_stopped, 2);
  const KernelTimes times = kernel_iteration_times(got, 3);
  ASSERT_TRUE(times.complete) << times.why_not;
  EXPECT_EQ(times.iteration_us, (std::vector<double>{0.048, 0.048, 0.048}));
  // Iterations of two tasks each (a send and a receive of one kernel): from the latest start of
  // either to the latest end.
  const KernelTimes pairs = kernel_iteration_times({got[0], got[1]}, 1);
  ASSERT_TRUE(pairs.complete);
  EXPECT_EQ(pairs.iteration_us, (std::vector<double>{0.048}));
  EXPECT_EQ(kernel_iteration_times(got, 2).why_not, "3 NCCL tasks recorded for 2 iterations");
  // A channel's event whose handle is no task's is dropped, not taken for one.
  int stranger = 0;
  np::DescriptorV5 lost = kernel_channel(&stranger, 0, 5);
  void* handle = reinterpret_cast<void*>(1);
  ASSERT_EQ(v5->start_event(context, &handle, &lost), 0);
  EXPECT_EQ(handle, nullptr);
  records.time_kernels(false);
  ASSERT_EQ(v5->init(&context, 7, &mask, "comm", 1, 4, 0, nullptr), 0);
  EXPECT_FALSE(records.kernels_timed());
}

TEST(NcclProfilerKernelTimes, ACollectiveWaitsForAllItsChannels) {
  commsweep_nccl_record r{};
  r.task = COMMSWEEP_NCCL_COLL;
  r.channels = 4;
  r.gpu_start_ns = 10;
  r.gpu_stop_ns = 2010;
  r.kernel_channels_started = r.kernel_channels_stopped = 3;
  EXPECT_EQ(kernel_iteration_times({r}, 1).why_not, "1 of 1 NCCL tasks have not all their kernel channels' ends");
  r.kernel_channels_started = r.kernel_channels_stopped = 4;
  EXPECT_EQ(kernel_iteration_times({r}, 1).iteration_us, (std::vector<double>{2.0}));
  // A send's proxy operations need not match its descriptor's channels.
  r.task = COMMSWEEP_NCCL_P2P;
  r.kernel_channels_started = r.kernel_channels_stopped = 1;
  EXPECT_TRUE(kernel_iteration_times({r}, 1).complete);
  r.kernel_channels_stopped = 0;
  EXPECT_FALSE(kernel_iteration_times({r}, 1).complete);
}

TEST(NcclProfilerKernelTimes, ATaskWithNothingToMoveCountsOnceTheReportsSettle) {
  // An alltoall iteration: a send with channels, and a send to itself that reported none.
  commsweep_nccl_record moved{}, self{};
  moved.task = self.task = COMMSWEEP_NCCL_P2P;
  moved.gpu_start_ns = 100;
  moved.gpu_stop_ns = 1100;
  moved.kernel_channels_started = moved.kernel_channels_stopped = 2;
  const KernelTimes early = kernel_iteration_times({moved, self}, 1);
  EXPECT_FALSE(early.complete);
  EXPECT_EQ(early.silent, 1);
  const KernelTimes settled = kernel_iteration_times({moved, self}, 1, /*silent_done=*/true);
  ASSERT_TRUE(settled.complete);
  EXPECT_EQ(settled.iteration_us, (std::vector<double>{1.0}));
  // An iteration none of whose tasks reported has no time.
  EXPECT_EQ(kernel_iteration_times({moved, self, self, self}, 2, true).why_not,
            "iteration 2's NCCL tasks reported no kernel channel");
}

TEST(NcclProfilerPlan, SetsTheVariableOnlyWhereTheUserSetNone) {
  const ProfilerPlan own = plan_nccl_profiler(nullptr, "/opt/commsweep/bin/libcommsweep-nccl-profiler.so");
  EXPECT_TRUE(own.use);
  EXPECT_TRUE(own.set_variable);
  const ProfilerPlan theirs = plan_nccl_profiler("/opt/x/libnccl-profiler-inspector.so", "/b/libcommsweep-nccl-profiler.so");
  EXPECT_FALSE(theirs.use);
  EXPECT_EQ(theirs.why_not,
            "NCCL_PROFILER_PLUGIN=/opt/x/libnccl-profiler-inspector.so is set (NCCL loads one profiler plugin: "
            "commsweep's is not used; unset it to see NCCL's choice)");
  EXPECT_FALSE(plan_nccl_profiler("none", "/b/libcommsweep-nccl-profiler.so").use);  // NCCL's own off switch
  const ProfilerPlan named = plan_nccl_profiler("/b/libcommsweep-nccl-profiler.so", "");
  EXPECT_TRUE(named.use);
  EXPECT_FALSE(named.set_variable);
  EXPECT_FALSE(plan_nccl_profiler(nullptr, "").use);
}

TEST(NcclProfilerPlan, FindsThePluginBesideTheBinary) {
  const std::string plugin = COMMSWEEP_NCCL_PROFILER_PATH;
  const std::string folder = plugin.substr(0, plugin.rfind('/'));
  EXPECT_EQ(nccl_profiler_path(folder + "/commsweep"), folder + "/" + kNcclProfilerFile);
  EXPECT_EQ(nccl_profiler_path("/nonexistent/bin/commsweep"), "");
  EXPECT_FALSE(NcclProfilerRecords("/nonexistent/libcommsweep-nccl-profiler.so").available());
}

}  // namespace
}  // namespace commsweep
