// The tests of `commsweep nvlink` on one node, run by every rank of it in the same order (every
// node at once, each on its own): every ordered pair (src, dst) alone, the node's other GPUs
// idle and a barrier between two tests: copy engine and SM write, read and bidir, then the
// latency; then every GPU as all-to-one's target and one-to-all's source. Every copy's bytes are
// checked on the receiver against the sender's pattern, and every rank of the node learns every
// result (the node's first rank sends them to rank 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nvlink/record.hpp"
#include "nvlink/settings.hpp"
#include "nvlink/gpu/copies.hpp"
#include "nvlink/gpu/node_group.hpp"
#include "nvlink/gpu/peer_window.hpp"
#include "report/gpu_window.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/window_observer.hpp"

namespace commsweep::p2p {

class NodeTests {
 public:
  // FAULTS: asked how many copies each timed copy of a pair's tests makes (copies_per_timed_copy).
  // GPU_STATE (none: not read): each pair's src and dst GPU read before its first test and after
  // its latency, outside every timed copy (docs/gpu-state.md); every rank of the node gives one
  // or none alike.
  // PLAN: the run's settings (bytes, iterations, warm-up, latency round trips, seed, -T).
  NodeTests(NodeGroup& group, PeerWindow& window, CopyStreams& streams, const nvlink::NvlinkSettings& plan,
            FaultPoints& faults, WindowObserver* gpu_state = nullptr);
  std::vector<nvlink::PairResult> pairs();
  std::vector<nvlink::TargetResult> targets();

 private:
  struct Transfer {
    int actor;   // the GPU that issues the copy
    int source;  // whose data moves
    int receiver;
  };
  struct Outcome {
    double gbps = 0;
    std::uint64_t wrong = 0;
  };
  Outcome run(const std::vector<Transfer>& transfers, Engine engine, int repeat, const char* what);
  nvlink::PairResult pair(int src, int dst);
  std::optional<double> latency(int src, int dst);
  bool can_pair(int a, int b) const;
  Phase phase(const std::string& what) const;
  // Whether this rank's GPU is observed over pair (SRC, DST)'s window: where it is one of the two.
  bool in_pair(int src, int dst) const;
  // The pair's windows, on every rank of the node (a gather of the node's ranks).
  std::vector<report::GpuWindow> pair_windows(const std::optional<WindowSamples>& samples);

  NodeGroup& group_;
  PeerWindow& window_;
  CopyStreams& streams_;
  const nvlink::NvlinkSettings& plan_;  // the run's: outlives the tests
  FaultPoints& faults_;
  pattern::Spec spec_;
  std::vector<std::uint64_t> mapped_;  // per GPU: a bit per GPU its rank mapped
  WindowObserver* gpu_state_;
};

}  // namespace commsweep::p2p
