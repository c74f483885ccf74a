// What `commsweep nvlink` measured inside each node, as typed records (no MPI, no CUDA): every
// node's GPUs (their NVLinks as NVML counts them, the links' error counters before and after),
// every ordered GPU pair's bandwidth by copy engine and by SM and its latency, and every GPU as
// the target of all-to-one and the source of one-to-all. GB/s is 1e9 bytes per second.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "health/records.hpp"
#include "report/gpu_window.hpp"
#include "report/result.hpp"

namespace commsweep::nvlink {

// What one ordered pair (src, dst) measured: the data always flows from src to dst.
//   ce_write  src's copy engine pushes into dst's memory (cudaMemcpyAsync on src's stream)
//   ce_read   dst's copy engine pulls from src's memory
//   ce_bidir  both pushes at once (src to dst and dst to src): the two directions' bytes together
//   sm_*      the same by a kernel's 16-byte loads and stores through the peer pointer
enum class Metric { CeWrite = 0, CeRead, CeBidir, SmWrite, SmRead, SmBidir };
inline constexpr std::size_t kMetrics = 6;
inline constexpr std::array<Metric, kMetrics> kAllMetrics{Metric::CeWrite, Metric::CeRead, Metric::CeBidir,
                                                         Metric::SmWrite, Metric::SmRead, Metric::SmBidir};
// "ce_write", ...; the JSON's keys and the table's titles.
const char* metric_name(Metric m);
bool by_copy_engine(Metric m);
bool bidirectional(Metric m);

struct Gpu {
  int index = 0;  // the GPU's place in its node: the node rank of the rank that drives it
  int rank = 0;   // that rank
  int device = -1;
  std::string name;
  std::string pci_bus_id;  // CUDA's "0000:18:00.0"
  // NVML: the active NVLinks and their version (nvmlNvlinkVersion_t: 6 is NVLink 4.0), 0 when
  // unread (nvml_note says why).
  int nvlinks_active = 0;
  int nvlink_version = 0;
  // The links' common speed (MB/s, NVML field 90) and the links the device has (field 91, else
  // the links NVML reported a state for): the rest of the GPU's NVLink mode
  // (health/nvlink_mode.hpp); unset where unread and in files written before them.
  std::optional<unsigned> nvlink_speed_mbps;
  int nvlinks_present = 0;
  std::string nvml_note;
  // The links' error counters before the first pair and after the last (health/gpu_reader).
  std::vector<health::NvLink> before, after;
};

struct PairResult {
  int src = 0, dst = 0;  // node-local GPU indices
  std::array<std::optional<double>, kMetrics> gbps{};  // unset: not measured
  std::optional<double> latency_us;  // one way: half the round trip of a flag through peer memory
  std::uint64_t wrong = 0;           // bytes (8-byte words) that arrived wrong, every test of the pair
  std::string note;                  // "no peer access" and the like
  // The GPU state of src's and dst's GPUs over the pair's tests (report/gpu_window.hpp: read
  // before its first test and after its latency, never inside one), each window's rank the GPU's
  // world rank; empty where none was read and in files written before it.
  std::vector<report::GpuWindow> gpu_state;
};

// GPU `gpu` as the target of all-to-one (every other GPU of the node writes into it at once) and
// as the source of one-to-all (it writes into every other GPU at once), by copy engine: the
// bytes of every copy together over the slowest copy's time.
struct TargetResult {
  int gpu = 0;
  std::optional<double> all_to_one_gbps, one_to_all_gbps;
  std::uint64_t wrong = 0;
};

struct NodeMatrix {
  std::string host;
  std::vector<Gpu> gpus;
  std::vector<PairResult> pairs;      // ordered pairs, src-major
  std::vector<TargetResult> targets;  // one per GPU
};

// The settings a reader of the results needs to judge them again.
struct RunConfig {
  std::uint64_t bytes = 0;  // per copy
  int iters = 0, warmup = 0;
  int latency_iters = 0;
  double slow_fraction = 0;       // of the node median
  double expected_floor = 0;      // of the topology's rate (copy-engine tests)
  double latency_over = 0;        // x the node median latency
  std::string fault;              // a planted fault ("slow-pair:1,2"), testing only
};

struct NvlinkRun {
  RunConfig settings;
  report::Provenance provenance;
  std::vector<NodeMatrix> nodes;
  bool complete = false;
  std::string interrupted_by;
  std::string failure;
  // The health snapshots' FAIL findings around the run, one line each (health/report.hpp,
  // fail_lines): the run exits 6 and its summary names them (health_fail).
  std::vector<std::string> health_fail;
};

}  // namespace commsweep::nvlink
