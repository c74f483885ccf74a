#include "nvlink/gpu/node_tests.hpp"

#include <algorithm>
#include <array>

namespace commsweep::p2p {

NodeTests::NodeTests(NodeGroup& group, PeerWindow& window, CopyStreams& streams, const nvlink::NvlinkSettings& plan,
                     FaultPoints& faults, WindowObserver* gpu_state)
    : group_(group),
      window_(window),
      streams_(streams),
      plan_(plan),
      faults_(faults),
      spec_(CopyStreams::spec(plan.seed, group.size())),
      gpu_state_(gpu_state) {
  std::uint64_t mine = 0;
  for (int k = 0; k < group.size() && k < 64; ++k)
    if (window.mapped(k)) mine |= std::uint64_t{1} << k;
  mapped_ = group.all_gather(mine, phase("the peer mappings"));
  streams_.fill(window.send(group.rank()), plan.bytes, spec_, group.rank());
}

Phase NodeTests::phase(const std::string& what) const {
  return Phase{"nvlink: " + what + " on node rank " + std::to_string(group_.rank()), Deadline::after(plan_.timeout_s)};
}

bool NodeTests::can_pair(int a, int b) const {
  return a < 64 && b < 64 && (mapped_[a] >> b & 1) && (mapped_[b] >> a & 1);
}

// Every TRANSFER at once: its receiver's slot poisoned, a barrier, the actors' copies timed, the
// receivers' check; the bytes of every copy together over the slowest actor's time.
NodeTests::Outcome NodeTests::run(const std::vector<Transfer>& transfers, Engine engine, int repeat, const char* what) {
  const int me = group_.rank();
  for (const auto& t : transfers)
    if (t.receiver == me) streams_.poison(window_.recv(me, t.source), plan_.bytes, spec_, t.source);
  group_.all_gather(me, phase(std::string(what) + " (start)"));
  std::vector<Copy> copies;
  for (const auto& t : transfers)
    if (t.actor == me) copies.push_back({window_.recv(t.receiver, t.source), window_.send(t.source)});
  const double ms = streams_.time(copies, plan_.bytes, engine, plan_.warmup, plan_.iters, repeat);
  const std::vector<double> times = group_.all_gather(ms, phase(std::string(what) + " (timings)"));
  std::uint64_t wrong = 0;
  for (const auto& t : transfers)
    if (t.receiver == me) wrong += streams_.wrong_words(window_.recv(me, t.source), plan_.bytes, spec_, t.source);
  Outcome out;
  for (std::uint64_t w : group_.all_gather(wrong, phase(std::string(what) + " (check)"))) out.wrong += w;
  const double slowest = *std::max_element(times.begin(), times.end());
  const double bytes = static_cast<double>(plan_.bytes) * plan_.iters * static_cast<double>(transfers.size());
  out.gbps = slowest > 0 ? bytes / (slowest * 1e-3) / 1e9 : 0;
  return out;
}

bool NodeTests::in_pair(int src, int dst) const {
  const int me = group_.rank();
  return gpu_state_ && (me == src || me == dst);
}

std::vector<report::GpuWindow> NodeTests::pair_windows(const std::optional<WindowSamples>& samples) {
  if (!gpu_state_) return {};
  // A window as the node's ranks gather it: read or not, the world rank, window_numbers.
  std::array<double, 2 + report::kWindowNumbers> mine{};
  if (samples) {
    const std::vector<double> numbers = report::window_numbers(report::window_between(samples->start, samples->end));
    mine[0] = 1;
    mine[1] = group_.world().rank();
    std::copy(numbers.begin(), numbers.end(), mine.begin() + 2);
  }
  std::vector<report::GpuWindow> out;
  for (const auto& w : group_.all_gather(mine, phase("GPU state (gather)")))
    if (w[0] == 1)
      out.push_back(report::window_from_numbers(std::vector<double>(w.begin() + 2, w.end()), static_cast<int>(w[1])));
  return out;
}

std::optional<double> NodeTests::latency(int src, int dst) {
  const int me = group_.rank();
  if (me == src) streams_.zero(window_.flag(src, dst));
  if (me == dst) streams_.zero(window_.flag(dst, src));
  group_.all_gather(me, phase("latency (start)"));
  double us = 0;
  // The flag's wait is bounded well inside the phase's deadline, so a lost flag is a finding.
  const double bound = std::min(10.0, plan_.timeout_s / 4);
  if (me == src) us = streams_.ping_pong(window_.flag(src, dst), window_.flag(dst, src), plan_.latency_iters, true, bound);
  if (me == dst) streams_.ping_pong(window_.flag(dst, src), window_.flag(src, dst), plan_.latency_iters, false, bound);
  const std::vector<double> all = group_.all_gather(us, phase("latency (result)"));
  if (all[static_cast<std::size_t>(src)] < 0) return std::nullopt;
  return all[static_cast<std::size_t>(src)];
}

nvlink::PairResult NodeTests::pair(int src, int dst) {
  nvlink::PairResult p;
  p.src = src;
  p.dst = dst;
  if (!can_pair(src, dst)) {
    p.note = "no peer access between the two GPUs (CUDA IPC could not map one's memory in the other's process)";
    return p;
  }
  const int repeat = faults_.copies_per_timed_copy(group_.world_rank(src), group_.world_rank(dst));
  const std::vector<Transfer> write{{src, src, dst}}, read{{dst, src, dst}}, bidir{{src, src, dst}, {dst, dst, src}};
  const bool observed = in_pair(src, dst);
  if (observed) gpu_state_->window_starts();
  struct Test { nvlink::Metric metric; const std::vector<Transfer>* transfers; Engine engine; };
  const Test tests[] = {{nvlink::Metric::CeWrite, &write, Engine::CopyEngine}, {nvlink::Metric::CeRead, &read, Engine::CopyEngine},
                        {nvlink::Metric::CeBidir, &bidir, Engine::CopyEngine}, {nvlink::Metric::SmWrite, &write, Engine::Sm},
                        {nvlink::Metric::SmRead, &read, Engine::Sm},          {nvlink::Metric::SmBidir, &bidir, Engine::Sm}};
  for (const Test& t : tests) {
    const Outcome o = run(*t.transfers, t.engine, repeat, nvlink::metric_name(t.metric));
    p.gbps[static_cast<std::size_t>(t.metric)] = o.gbps;
    p.wrong += o.wrong;
  }
  p.latency_us = latency(src, dst);
  if (!p.latency_us) p.note = "the latency test's flag did not come back";
  std::optional<WindowSamples> samples;
  if (observed) samples = gpu_state_->window_ends();
  p.gpu_state = pair_windows(samples);
  return p;
}

std::vector<nvlink::PairResult> NodeTests::pairs() {
  std::vector<nvlink::PairResult> out;
  for (int s = 0; s < group_.size(); ++s)
    for (int d = 0; d < group_.size(); ++d)
      if (s != d) out.push_back(pair(s, d));
  return out;
}

std::vector<nvlink::TargetResult> NodeTests::targets() {
  std::vector<nvlink::TargetResult> out;
  const int n = group_.size();
  if (n < 2) return out;
  for (int g = 0; g < n; ++g) {
    std::vector<Transfer> into, out_of;
    for (int k = 0; k < n; ++k) {
      if (k == g || !can_pair(k, g)) continue;
      into.push_back({k, k, g});
      out_of.push_back({g, g, k});
    }
    nvlink::TargetResult t;
    t.gpu = g;
    if (!into.empty()) {
      const Outcome a = run(into, Engine::CopyEngine, 1, "all-to-one");
      const Outcome b = run(out_of, Engine::CopyEngine, 1, "one-to-all");
      t.all_to_one_gbps = a.gbps;
      t.one_to_all_gbps = b.gbps;
      t.wrong = a.wrong + b.wrong;
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace commsweep::p2p
