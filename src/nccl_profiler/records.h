/* What commsweep's NCCL profiler plugin (plugin.cpp, libcommsweep-nccl-profiler.so) records of
 * each collective and point-to-point task NCCL launches, and the C functions commsweep reads
 * them with and asks for the kernels' timestamps with (comm/nccl_profiler_reader.hpp). The plugin and commsweep are built together:
 * kRecordsAbi changes whenever this layout does, and the reader refuses another. */
#ifndef COMMSWEEP_NCCL_PROFILER_RECORDS_H
#define COMMSWEEP_NCCL_PROFILER_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COMMSWEEP_NCCL_RECORDS_ABI 3

/* The records the plugin holds, the last ones (plugin.cpp says why this many). */
#define COMMSWEEP_NCCL_RECORDS_HELD 16384

enum commsweep_nccl_task { COMMSWEEP_NCCL_COLL = 1, COMMSWEEP_NCCL_P2P = 2, COMMSWEEP_NCCL_CE_COLL = 3 };

struct commsweep_nccl_record {
  uint64_t sequence;     /* 1, 2, ... in the order NCCL started the tasks in this process */
  int32_t task;          /* enum commsweep_nccl_task */
  int32_t channels;      /* the channels NCCL gave the task; 0 where it says none (CE) */
  uint64_t count;        /* elements */
  char func[32];         /* NCCL's name: "AllReduce", "Send", ... */
  char datatype[24];     /* "ncclFloat32" */
  char algorithm[24];    /* "Ring", "Tree", "NVLS", ...; "" for point-to-point; "CE" */
  char protocol[16];     /* "LL", "LL128", "Simple"; "" for point-to-point */
  int32_t profiler_version; /* the interface NCCL chose: 4, 5 or 6 */
  int32_t reserved;
  /* Where the kernels are timed (commsweep_nccl_time_kernels): NCCL's kernel channel events,
   * each channel's start and stop of this task in the GPU's %globaltimer nanoseconds, as NCCL's
   * kernel wrote them. The latest start and the latest stop over the channels, and how many
   * channels started and stopped so far (NCCL's proxy thread reports them after the kernel ran).
   * The latest, not the earliest, start: NCCL 2.28.9 pairs a channel's report with the slot of
   * its previous work where its host and device counters differ (channel 0 after send/receive
   * work, on 4 x H100), so one channel's start may be the previous task's; the other channels of
   * a 24-channel all_reduce started within 0.19 us of each other (36 tasks traced on 4 x H100). */
  uint64_t gpu_start_ns;
  uint64_t gpu_stop_ns;
  int32_t kernel_channels_started;
  int32_t kernel_channels_stopped;
};

/* The ABI of these records (COMMSWEEP_NCCL_RECORDS_ABI). */
int commsweep_nccl_records_abi(void);
/* How many tasks were recorded so far (the sequence of the last one). */
uint64_t commsweep_nccl_recorded(void);
/* Copies the records with sequence > AFTER that are still held (the last COMMSWEEP_NCCL_RECORDS_HELD), oldest first,
 * at most MAX of them, into OUT; returns how many. */
int commsweep_nccl_records_since(uint64_t after, struct commsweep_nccl_record* out, int max);
/* Before NCCL's init of a communicator: whether that init asks NCCL for its kernel channel events
 * as well (ON non-zero), which makes NCCL's kernels write a timestamp per channel at the start
 * and end of each task and its proxy thread hand them over. */
void commsweep_nccl_time_kernels(int on);
/* The task events (what NCCL chose per task) on (ON non-zero) or off for the groups and tasks
 * NCCL enqueues from now on (it reads its event mask as it enqueues them). Off, NCCL starts no
 * event of the plugin's: the table's pass runs so, and a warm-up records the choice
 * (docs/iterations.md). On after an init, until first turned off. */
void commsweep_nccl_task_events(int on);
/* Whether the last init asked NCCL for the kernel channel events. */
int commsweep_nccl_kernels_timed(void);

#ifdef __cplusplus
}
#endif

#endif
