// The rounds of `commsweep pairs` (pairs/rounds.hpp).
#include "pairs/rounds.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>

#include "pairs/job.hpp"
#include "pairs/outliers.hpp"
#include "pairs/schedule.hpp"
#include "plan/adaptive.hpp"
#include "runtime/termination.hpp"

namespace commsweep::pairs {
namespace {

// Whether a pair keeps a GPU window of a run of NODES nodes: every window up to kWindowsKeptNodes
// nodes, a throttled one above (the findings use those; all of 1,000 nodes' would be millions).
bool window_kept(const report::GpuWindow& w, std::size_t nodes) {
  return nodes <= kWindowsKeptNodes || !w.throttles.empty();
}

constexpr int kMaxFollowUps = 4;  // each re-tests only what is still open; 2 suffice for one fault

// rounds_ended() on the way out, an exception's included.
class Watching {
 public:
  Watching(RoundWatcher& watcher, std::size_t count) : watcher_(watcher) { watcher_.rounds_starting(count); }
  ~Watching() { watcher_.rounds_ended(); }
  Watching(const Watching&) = delete;
  Watching& operator=(const Watching&) = delete;

 private:
  RoundWatcher& watcher_;
};

}  // namespace

ExchangeConfig exchange_config(const PairsSettings& s) {
  ExchangeConfig config;
  config.count = s.bytes / 4;
  config.iters = s.iters;
  config.warmup = s.warmup;
  config.check = s.check;
  config.timeout_s = s.timeout_s;
  config.seed = s.seed;
  return config;
}

void add_round(PairsRun& run, int round, const std::vector<std::string>& reports, bool checked,
               const std::vector<report::GpuWindow>& windows) {
  const std::uint64_t bytes = run.settings.bytes;
  std::map<int, const report::GpuWindow*> window_of;  // by rank
  for (const auto& w : windows)
    if (window_kept(w, run.nodes.size())) window_of[w.rank] = &w;
  for (const auto& np : run.rounds[round].pairs) {
    PairMeasurement m;
    m.round = round;
    m.node_a = np.a;
    m.node_b = np.b;
    const auto& a = run.nodes[np.a].ranks;
    const auto& b = run.nodes[np.b].ranks;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
      Rail rail;
      rail.local_rank = static_cast<int>(k);
      rail.rank_a = a[k];
      rail.rank_b = b[k];
      std::uint64_t wrong_a = 0, wrong_b = 0;
      std::istringstream(reports[a[k]]) >> rail.time_us_a >> wrong_a;
      std::istringstream(reports[b[k]]) >> rail.time_us_b >> wrong_b;
      rail.time_us = std::max(rail.time_us_a, rail.time_us_b);
      // bytes / us = 1e6 B/s; GB/s is 1e9 B/s.
      rail.gbps = rail.time_us > 0 ? static_cast<double>(bytes) / rail.time_us / 1e3 : 0;
      if (checked) rail.wrong = wrong_a + wrong_b;
      m.rails.push_back(rail);
    }
    for (const Rail& rail : m.rails)
      for (const int rank : {rail.rank_a, rail.rank_b})
        if (const auto w = window_of.find(rank); w != window_of.end()) m.gpu_state.push_back(*w->second);
    run.pairs.push_back(std::move(m));
  }
}

namespace {

// A rank's round as it tells rank 0, in the one gather of the round: its time and wrong count,
// then its GPU's window as numbers (report::window_numbers; NaN: a reading NVML did not give),
// where one was read and is kept.
std::string round_report(const RankRound& mine, const std::optional<report::GpuWindow>& window) {
  std::ostringstream told;
  told.precision(17);
  told << mine.time_us << " " << mine.wrong;
  if (window)
    for (const double x : report::window_numbers(*window)) told << " " << x;
  return told.str();
}

// The windows the ranks' reports carry, each with its rank. (strtod, not >>: it reads "nan".)
std::vector<report::GpuWindow> windows_of(const std::vector<std::string>& reports) {
  std::vector<report::GpuWindow> windows;
  for (std::size_t rank = 0; rank < reports.size(); ++rank) {
    std::vector<double> numbers;
    const char* p = reports[rank].c_str();
    for (char* end = nullptr;; p = end) {
      const double x = std::strtod(p, &end);
      if (end == p) break;
      numbers.push_back(x);
    }
    if (numbers.size() > 2)
      windows.push_back(report::window_from_numbers({numbers.begin() + 2, numbers.end()}, static_cast<int>(rank)));
  }
  return windows;
}

}  // namespace

void measure_rounds(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
                    PairsRun& run, std::size_t first, RoundWatcher& watcher, FaultPoints& faults,
                    WindowObserver* gpu_state) {
  const auto node_of = node_of_every_rank(world);
  const auto by_node = ranks_by_node(node_of);
  const Watching watching(watcher, run.rounds.size() - first);
  const bool complete = control.until_stopped([&] {
    for (int r = static_cast<int>(first); r < static_cast<int>(run.rounds.size()); ++r) {
      const auto start = std::chrono::steady_clock::now();
      const std::string label = "pairs round " + std::to_string(r + 1);
      faults.before_round(r);
      const int partner = partner_of(world.rank(), run.rounds[r], by_node, node_of);
      if (gpu_state) gpu_state->window_starts();
      const RankRound mine = exchange.run_round(partner, label);
      const auto samples = gpu_state ? gpu_state->window_ends() : std::nullopt;
      std::optional<report::GpuWindow> window;
      if (samples) window = report::window_between(samples->start, samples->end);
      // Sent only where rank 0 keeps it (add_round).
      if (window && !window_kept(*window, by_node.size())) window.reset();
      const auto reports =
          world.gather(round_report(mine, window), Phase{label + " (gather)", Deadline::after(s.timeout_s)});
      if (world.rank() != 0) continue;
      add_round(run, r, reports, s.check > 0, windows_of(reports));
      run.round_wall_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      watcher.round_measured(run, r);
    }
  });
  if (!complete) {
    run.complete = false;
    run.interrupted_by = termination_signal_name();
  }
}

std::vector<int> encode_rounds(const std::vector<Round>& rounds) {
  std::vector<int> out;
  for (const auto& r : rounds) {
    out.push_back(static_cast<int>(r.pairs.size()));
    for (const auto& p : r.pairs) out.push_back(p.a), out.push_back(p.b);
  }
  return out;
}

std::vector<Round> decode_rounds(const std::vector<int>& in, const std::string& label) {
  std::vector<Round> rounds;
  for (std::size_t i = 0; i < in.size();) {
    Round r;
    r.label = label;
    const int n = in[i++];
    for (int k = 0; k < n; ++k, i += 2) r.pairs.push_back({in[i], in[i + 1]});
    rounds.push_back(std::move(r));
  }
  return rounds;
}

void follow_up(World& world, RunControl& control, PairExchange& exchange, const PairsSettings& s,
               PairsRun& run, RoundWatcher& watcher, FaultPoints& faults, WindowObserver* gpu_state) {
  const Phase phase{"pairs follow-up plan (broadcast)", Deadline::after(s.timeout_s)};
  for (int step = 1; step <= kMaxFollowUps; ++step) {
    std::vector<int> encoded;
    int open = 0;  // rank 0: the complete run, and slow pairs to follow
    if (world.rank() == 0 && run.complete) {
      const auto evidence = evidence_of(run, analyse(run));
      run.findings = plan::localise(run.topology, evidence);
      encoded = encode_rounds(plan::followup(run.topology, evidence, run.findings, step));
      open = static_cast<int>(encoded.size());
    }
    world.broadcast(&open, sizeof open, 0, phase);
    if (open == 0) return;
    encoded.resize(static_cast<std::size_t>(open));
    world.broadcast(encoded.data(), open * static_cast<int>(sizeof(int)), 0, phase);
    const std::size_t first = run.rounds.size();
    for (auto& r : decode_rounds(encoded, "follow-up " + std::to_string(step))) run.rounds.push_back(std::move(r));
    if (world.rank() == 0) watcher.follow_up_planned(step, run.rounds.size() - first);
    measure_rounds(world, control, exchange, s, run, first, watcher, faults, gpu_state);
    int complete = run.complete ? 1 : 0;
    world.broadcast(&complete, sizeof complete, 0, phase);
    if (!complete) return;
  }
}

}  // namespace commsweep::pairs
