// Typed result records. Nothing here knows about MPI, NCCL or CUDA: printers and the
// regression tools work on these alone. GB/s is 1e9 bytes per second everywhere.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/gpu_window.hpp"

namespace commsweep::report {

struct Sheet;  // report/figure.hpp

// 2: the "health" member (issue 15: the hardware's counters before and after the run). Files
// of schema 1 are still read (they have no health).
inline constexpr const char* kResultsSchema = "commsweep.results/2";
inline constexpr const char* kResultsSchemaV1 = "commsweep.results/1";

// Every timed iteration of one half of a row (report/iteration_stats.hpp computes it). The
// names are nccl-tests' (2.19, -I: its JSON's "<half>_per_iter") where the meaning is the same:
// times_us is per iteration the slowest rank's time, the statistics are over times_us, and
// per_process_max_times_us holds each rank's own times (nccl-tests: each process's, the max
// over its GPUs; here one GPU per rank). first_us, spikes, rank_max_us are commsweep's.
struct IterationStats {
  int skipped_iterations = 0;  // always 0: every timed iteration counts (nccl-tests' -K)
  double min_us = 0, max_us = 0, avg_us = 0, p50_us = 0, p95_us = 0, p99_us = 0;
  double stdev_us = 0, cv_pct = 0;
  double first_us = 0;         // the first timed iteration on its own (times_us[0])
  int spikes = 0;              // iterations slower than kSpikeFactor x p50_us
  std::vector<double> times_us;
  // [rank][iteration]; empty when ranks x iterations exceeds kMaxKeptRankTimes (the bound).
  std::vector<std::vector<double>> per_process_max_times_us;
  std::vector<double> rank_max_us;  // per rank, its slowest iteration
  // What timed them (Backend::iteration_clock, rank 0's): "host", "cuda-events", "nccl-kernel";
  // "" in files written before it was recorded.
  std::string clock;
  // Which pass of the half timed them: kTailsPass, or "" in files written before the table's
  // time and the tails were taken apart (then the tails' clock ran inside the table's time).
  std::string pass;
};

// How a half's time_us was measured (Timing::method): a clock around the -n iterations issued
// back to back, nothing per iteration inside: the host's from the first issue to the last
// completion (nccl-tests' timing, the default), or CUDA events on the stream (--timer device).
inline constexpr const char* kHostSpan = "host-span";
inline constexpr const char* kDeviceSpan = "device-span";
// The per-iteration times' pass (IterationStats::pass): the same -n iterations again, after the
// table's pass, each timed; their span is not reported.
inline constexpr const char* kTailsPass = "separate-pass";

// What NCCL chose for the collective of one half of a row: its algorithm ("Ring", "Tree",
// "NVLS", ...), protocol ("LL", "LL128", "Simple") and channels, as its profiler plugin
// interface told commsweep's plugin (comm/nccl_profiler_reader.hpp). Where no choice is known
// the algorithm and protocol say why ("n/a (mpi backend)") and channels is 0 (null in the JSON).
struct NcclChoice {
  std::string algorithm;
  std::string protocol;
  int channels = 0;
  std::string source;  // "profiler", or why there is none
};

// A figure's expected value where an entry of results/expected/ applies (regress/expected.hpp,
// judge_figure): any workload's but the collectives' halves, which keep their expected busbw.
struct ExpectedValue {
  std::string key;          // the judged value's name in its document: "time_us", "ce_write", "latency_us"
  double value = 0;         // in that value's unit
  double of_expected = 0;   // the share of the expected performance: value / expected, expected / value for a time
  std::string entry;        // the entry's id
};

struct Timing {
  double time_us = 0;       // per collective, combined over ranks as -a says
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong;  // summed over ranks; empty = not checked (N/A)
  int slowest_rank = 0;
  double slowest_time_us = 0;
  std::vector<double> rank_time_us;    // index = rank
  // Empty when not kept (--per-iteration off); rank 0's record only.
  std::optional<IterationStats> per_iter;
  NcclChoice nccl;
  // kHostSpan or kDeviceSpan; "" in files written before it was recorded.
  std::string method;
  // Per rank, its GPU's state over the half: warm-up, table and tails passes (report/gpu_window.hpp); rank 0's
  // record only; empty where no GPU was read (the mpi backend without a recording) and in
  // files written before it.
  std::vector<GpuWindow> gpu_state;
  // The busbw expected of this size on this hardware (results/expected/, regress/expected.hpp),
  // GB/s; empty where no entry applies (the JSON's null) and in files written before it.
  std::optional<double> expected_gbps;
};

struct ResultRow {
  std::string test;       // "all_reduce"
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;  // elements, as nccl-tests prints it
  std::string type;       // "float"
  std::string redop;      // "sum", or "none"
  int root = -1;
  Timing out_of_place;
  Timing in_place;
};

// One phase (dispatch or combine) of an EP row. Times are per rank the median over the
// iterations; time_us combines them over ranks (mean), as the collectives do with -a 1.
struct EpPhase {
  double time_us = 0;
  double bandwidth_gbps = 0;         // DeepEP's accounting: mean over ranks of bytes / time
  double fabric_bandwidth_gbps = 0;  // bytes that left the rank (self excluded) / time
  std::optional<std::uint64_t> wrong;  // summed over ranks; empty = not checked (-c 0: N/A, null)
  int slowest_rank = 0;
  double slowest_time_us = 0;
  std::vector<double> rank_time_us;
  // SMs that ran the phase's own kernel (the most over ranks); 0 where none was counted: NCCL's
  // collectives or the host do the work (null in the JSON).
  int sms = 0;
  // How far apart the ranks' times are: (slowest - fastest rank) / time_us, in percent.
  double rank_spread_pct = 0;
  // The phase's expected time on this hardware (results/expected/); empty where no entry applies
  // (the JSON's null) and in files written before it.
  std::optional<ExpectedValue> expected;
};

// The back-to-back pass of an EP row: `pairs` dispatch / experts / combine pairs issued one after
// the other with no barrier between them, one host clock around them on each rank.
struct EpBackToBack {
  double period_us = 0;                // per pair, the slowest rank's
  std::vector<double> rank_period_us;  // index = rank
  int pairs = 0;
};

// One configuration of the MoE dispatch / combine sweep.
struct EpRow {
  std::string routing;  // randn uniform balanced skewed file
  int tokens = 0;       // per rank
  int hidden = 0;
  int topk = 0;
  int experts = 0;
  std::string dtype;    // bf16 fp8
  std::string impl = "alltoallv";  // alltoallv lsa (ep/ep_config.hpp)
  int iters = 0;
  std::vector<std::uint64_t> rank_bytes_deepep;  // per rank, received in dispatch
  std::vector<std::uint64_t> rank_bytes_fabric;
  EpPhase dispatch;   // fresh entry: every phase started together after a barrier
  EpPhase combine;
  std::optional<EpBackToBack> back_to_back;  // empty with -n 0, and in files from before it
  std::string note;  // printed under the row (rank 0's, e.g. time per stage); not in the JSON
  // Which NCCL path the implementation used ("grouped ncclSend/ncclRecv", "NCCL device API
  // (lsa) kernels"; "n/a (mpi backend)"); "" in files written before it was recorded.
  std::string nccl_path;
  // Per rank, its GPU's state over the fresh-entry timed iterations (report/gpu_window.hpp):
  // rank 0's record only; empty where no GPU was read and in older files.
  std::vector<GpuWindow> gpu_state;
};

// A row whose busbw is below its expectation's WARN or FAIL floor (regress/expected.hpp): said
// under its table, kept in the summary; a FAIL makes the run's exit code 10 (slow).
struct ExpectedFinding {
  std::string severity;  // "WARN" or "FAIL"
  // The collectives' findings are of busbw; another workload's (ep) names its case and metric:
  // e.g. workload "ep", case "lsa randn h7168 k8 e256 bf16 4096 tokens", metric "time_us", half
  // "dispatch", busbw_gbps the value in the metric's unit (written as "value").
  std::string workload = "collective";
  std::string case_text;
  std::string metric = "busbw_gbps";
  std::string test;
  std::uint64_t size_bytes = 0;
  std::string half;  // "out_of_place" or "in_place": the one further below its expectation
  double busbw_gbps = 0;
  double expected_gbps = 0;
  double of_expected = 0;  // busbw_gbps / expected_gbps
  double floor = 0;        // the ratio it fell below
  int rank = 0;            // that half's slowest rank, and its host
  std::string host;
  std::string entry;       // the expectation's id
  std::string text;        // the line printed under the table
};

struct GpuInfo {
  int rank = 0;
  std::string host;
  int device = -1;
  std::string name;
  std::string pci_bus_id;
};

// The NCCL version policy's decision for one path this run uses (src/nccl_policy/), as text:
// report/ knows no NCCL.
struct NcclPolicySetting {
  std::string name;   // "useRuntimeVersion", "NCCL_DEV_API_JIT"
  std::string value;  // "false", "0 or unset"
  std::string how;    // "set" (by commsweep) or "demanded" (of the user)
  std::string why;
};
struct NcclPolicyDecision {
  std::string path;     // "host_collectives", "alltoallv_ep", "lsa_ep", "ll_all_to_all_counts"
  std::string verdict;  // "accepted", "accepted_with_setting", "refused"
  std::string message;  // why; for "refused" also the remedy
  std::vector<NcclPolicySetting> settings;
};

struct Provenance {
  std::string commsweep_version;
  std::string git_hash;
  std::string started_at;  // UTC, ISO 8601
  std::string backend;
  int ranks = 0;
  std::vector<std::string> hosts;  // per rank
  std::vector<GpuInfo> gpus;
  std::string driver_version;
  std::string cuda_version;
  std::string nccl_version;          // library loaded
  std::string nccl_headers_version;  // built against
  // nccl backend: the version policy's decision for each path the run uses (empty on mpi).
  std::vector<NcclPolicyDecision> nccl_policy;
  std::string mpi_version;
  std::map<std::string, std::string> environment;  // NCCL_* and UCX_*, secrets dropped
  std::vector<std::string> arguments;
  // Collective sweeps: "cold" or "warm" (--buffers); "" elsewhere (not written: ep, pairs).
  std::string buffers;
  // Collective sweeps: the clock that timed them, "host" or "device" (--timer, after the mpi
  // backend's fallback to the host clock); "mixed" for a suite whose sweeps differ; "" elsewhere.
  std::string timer;
};

// The transport NCCL used, per rank, as its own INFO lines said at set-up (captured by
// commsweep, fabric/nccl_log_capture.hpp), and the --require-transport / --require-gdr verdict.
struct TransportRank {
  int rank = -1;
  std::string host;
  int device = -1;
  std::string network;              // "IB", "Socket", or a net plugin's name; "" when none was seen
  std::vector<std::string> hcas;    // "mlx5_0:1/IB", "mlx5_2:1/RoCE", "eth0:10.0.0.1<0>"
  std::string link;                 // "IB", "RoCE", or "" (sockets, mixed, unknown)
  std::optional<bool> gdr;          // GPUDirect RDMA; empty when no network connection said
  bool dmabuf = false;
  int channels = 0;
  std::string graph;                // NCCL's graph type, "NVL/PIX"; "" unknown
  std::map<int, std::string> peers;  // peer rank -> "P2P", "SHM", "NET/IB", "NET/Socket"
};

struct TransportReport {
  // "reported" (no requirement), "pass", "fail", or "unavailable" (no lines to read: source says why)
  std::string status;
  std::string source;               // "captured", or whose NCCL_DEBUG settings were read or prevented it
  std::string required = "any";     // --require-transport: any ib roce socket nvlink
  bool require_gdr = false;
  std::vector<std::string> problems;  // why "fail", one per rank and requirement
  std::vector<TransportRank> ranks;
};

struct Results {
  std::string schema = kResultsSchema;
  Provenance provenance;
  std::optional<TransportReport> transport;  // nccl backend only
  std::vector<ResultRow> rows;
  std::vector<EpRow> ep_rows;
  // Said once for the whole run, under the table too: e.g. --ep-impl lsa left out by the NCCL
  // version policy (the rows are the other implementations' only).
  std::vector<std::string> notes;
  double avg_busbw_gbps = 0;
  std::uint64_t wrong_total = 0;
  bool complete = true;
  // When !complete: the signal ("SIGTERM", "SIGINT"), or "timeout", "error", "out of memory"
  // for a run ended early by a failure, which `failure` describes (the rank and what happened).
  std::string interrupted_by;
  std::string failure;
  // Every node's health snapshots, findings and joined verdict (health/report.hpp's
  // report_json); null when none were taken (COMMSWEEP_HEALTH=0, or a schema 1 file).
  nlohmann::json health;
  // Its FAIL findings, one line each (health/report.hpp, fail_lines): the run is not ok and
  // exits 6 (core/exit_codes.hpp) when any; the summary's health_fail.
  std::vector<std::string> health_fail;
  // Rows below their expected busbw's floor (results/expected/): the summary's
  // expected_findings; a FAIL among them is exit code 10 (slow) and the summary not ok.
  std::vector<ExpectedFinding> expected_findings;
  // A suite's sweeps of the workloads whose record is a document of their own (pairs, nvlink, a
  // test-only grid: Workload::schema), in order: each that document, its "schema" inside. Written
  // as "documents"; files of earlier releases held a suite's pairs documents under "pairs".
  std::vector<nlohmann::json> documents;
  // Every other workload's document this file holds as figures (report/figure.hpp): a `pairs` or
  // `nvlink --json` file's own, a suite's pairs sweeps; made by report::results_with_figures for
  // csv, baseline and compare, never written (the documents are). Shared: a copy of the results
  // (merge_runs) copies no pairs sheet of a million figures.
  std::vector<std::shared_ptr<const Sheet>> sheets;
};

// nccl-tests' "Avg bus bandwidth": the mean busbw over every measured half of every row.
double average_busbw(const std::vector<ResultRow>& rows);
// Wrong elements over every row: both halves (unchecked ones count 0); dispatch and combine.
std::uint64_t wrong_elements(const std::vector<ResultRow>& rows);
std::uint64_t wrong_elements(const std::vector<EpRow>& rows);
// Whether a row fell below its expectation's FAIL floor (exit code 10, the summary not ok).
bool expected_fail(const Results& results);

}  // namespace commsweep::report
