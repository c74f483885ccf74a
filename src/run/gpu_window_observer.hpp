// The GPU state around each measured window (sweep/window_observer.hpp) read through NVML:
// the rank's own GPU, found among NVML's by its PCI bus id.
//   COMMSWEEP_GPU_STATE (the nccl backend; docs/gpu-state.md):
//     unset, sampled  sampled on a thread of its own at each 100 ms slot of the host's clock,
//                     one schedule for every rank of the host (run/gpu_sampler.hpp); a window
//                     takes the samples of the last slots read before its two ends: nothing is
//                     read between the rows
//     ends            read at the window's two ends, on the measuring rank's own turn (exact
//                     windows; the reads cost the next rows' time at small sizes)
//     0               read nothing, not even a recording's replay
//   COMMSWEEP_NVML_RECORDING=FILE  replay FILE (run/nvml_recording_env.hpp) instead of the
//                                  driver's NVML, at the window's two ends: the rank reads the
//                                  recording's GPU of its local rank, on any backend (tests plant
//                                  throttling and drift so)
// Without a recording, only the nccl backend's ranks read (the mpi backend uses no GPU).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "health/nvml_api.hpp"
#include "report/gpu_window.hpp"
#include "sweep/window_observer.hpp"

namespace commsweep {

// One end of a window. NVML's calls are slow on the lent H200 VM (about 0.7 ms each on average,
// up to 3 ms; 6 ms for one end's reads: docs/gpu-state.md, figures.md), so each end reads only
// what it needs: the start the SM clock, then the counters (energy, four violation times) last,
// closest to the warm-up; the end the counters first, closest to the last timed pass's return,
// then the SM and memory clocks, temperature, power and its limit, and the clocks event reasons.
// The calls NVML does not answer leave their readings empty.
report::GpuSample read_gpu_sample(health::NvmlApi& nvml, unsigned gpu, WindowEnd end);

class GpuSampler;
struct SamplerMark;

class NvmlWindowObserver final : public WindowObserver {
 public:
  // BACKEND: the backend that runs ("nccl", "mpi"); BUS_ID: the rank's GPU's PCI bus id.
  // Throws a usage Error for a recording that cannot be read.
  NvmlWindowObserver(const std::string& backend, int local_rank, const std::string& bus_id);
  ~NvmlWindowObserver() override;
  void window_starts() override;
  std::optional<WindowSamples> window_ends() override;
  // "" while reading; else why nothing is read (said once by the run).
  const std::string& not_read() const { return not_read_; }
  // What the reads cost this rank so far: the reads (two per window at the ends; one per period
  // sampled) and their time; how the state is read ("" while nothing is).
  long reads() const;
  double read_us() const;
  // Whether the windows come from the sampler (else from reads at their ends, or none).
  bool sampled() const { return sampler_ != nullptr; }

 private:
  // Whether the driver's NVML was opened (a recording's replay: false; nothing: nvml_ empty).
  bool open(const std::string& backend, int local_rank, const std::string& bus_id);
  // One end's reads now, on a thread of its own while this one spins.
  report::GpuSample read_now(WindowEnd end);

  std::unique_ptr<health::NvmlApi> nvml_;
  std::unique_ptr<GpuSampler> sampler_;  // after nvml_: destroyed first, it calls it
  std::unique_ptr<SamplerMark> mark_;     // sampled: the window's start
  std::optional<report::GpuSample> start_;  // read at the ends: the window's start
  unsigned gpu_ = 0;
  std::optional<unsigned> max_sm_mhz_;  // read once: the GPU's, not the window's
  std::string not_read_;
  long reads_ = 0;
  double read_us_ = 0;
};

// The line the run prints once after the tables: what was read and what it cost (rank 0's
// reads), or why nothing was.
std::string gpu_state_note(const NvmlWindowObserver& observer);

}  // namespace commsweep
