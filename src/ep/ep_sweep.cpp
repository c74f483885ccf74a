#include "ep/ep_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "ep/layout.hpp"
#include "ep/verify.hpp"
#include "core/error.hpp"

namespace commsweep::ep {

report::EpPhase combine_phase(const std::vector<double>& rank_time_us,
                              const std::vector<std::uint64_t>& rank_bytes,
                              const std::vector<std::uint64_t>& rank_fabric_bytes,
                              std::optional<std::uint64_t> wrong) {
  report::EpPhase p;
  p.rank_time_us = rank_time_us;
  p.wrong = wrong;
  if (rank_time_us.empty()) return p;
  double time = 0, bw = 0, fabric = 0;
  for (std::size_t r = 0; r < rank_time_us.size(); ++r) {
    time += rank_time_us[r];
    // bytes / us = 1e6 B/s; GB/s is 1e9 B/s.
    if (rank_time_us[r] > 0) {
      bw += static_cast<double>(rank_bytes[r]) / rank_time_us[r] / 1e3;
      fabric += static_cast<double>(rank_fabric_bytes[r]) / rank_time_us[r] / 1e3;
    }
    if (rank_time_us[r] > p.slowest_time_us) {
      p.slowest_time_us = rank_time_us[r];
      p.slowest_rank = static_cast<int>(r);
    }
  }
  const double n = static_cast<double>(rank_time_us.size());
  p.time_us = time / n;
  const auto [fastest, slowest] = std::minmax_element(rank_time_us.begin(), rank_time_us.end());
  p.rank_spread_pct = p.time_us > 0 ? (*slowest - *fastest) / p.time_us * 100.0 : 0.0;
  p.bandwidth_gbps = bw / n;
  p.fabric_bandwidth_gbps = fabric / n;
  return p;
}

EpSweep::EpSweep(World& world, std::vector<NamedExchange> exchanges, RunControl& control,
                 const EpConfig& config, int ranks_per_node, FaultPoints* faults, WindowObserver* gpu_state)
    : world_(world), exchanges_(std::move(exchanges)), control_(control), config_(config),
      ranks_per_node_(ranks_per_node), faults_(faults), gpu_state_(gpu_state) {}

void validate_cases(const EpConfig& config, int nranks) {
  for (const EpCase& c : expand(config)) {
    if (const std::string why = invalid(c, nranks); !why.empty()) throw_usage(why);
  }
}

std::vector<Routing> EpSweep::routings(const EpCase& c) const {
  if (c.routing == RoutingKind::File) {
    try {
      return read_routing_file(config_.routing_file, c, world_.size());
    } catch (const std::exception& e) {
      throw_usage(std::string("--routing-file: ") + e.what());
    }
  }
  RoutingParams p;
  p.skew = config_.skew;
  p.topk_groups = config_.topk_groups;
  p.ranks_per_node = ranks_per_node_;
  p.seed = config_.seed;
  std::vector<Routing> all;
  try {
    for (int r = 0; r < world_.size(); ++r) all.push_back(make_routing(c, p, r, world_.size()));
  } catch (const std::invalid_argument& e) {
    throw_usage(e.what());
  }
  return all;
}

report::EpRow EpSweep::run_case(const EpCase& c, const std::vector<Routing>& all,
                                const NamedExchange& x) {
  const int n = world_.size();
  const int rank = world_.rank();
  EpExchange& exchange = *x.exchange;
  std::ostringstream label;
  label << "ep " << c.tokens << " tokens hidden " << c.hidden << " top-" << c.topk << " of "
        << c.experts << " " << name_of(c.dtype) << " " << name_of(c.routing) << " "
        << x.impl;
  auto phase = [&](const char* step) {
    return Phase{label.str() + " (" + step + ")", Deadline::after(config_.timeout_s)};
  };

  exchange.prepare(c, all[rank], config_.seed);
  std::vector<double> dispatch_us, combine_us;
  // The GPU's state over the case: read before the warm-up and after the back-to-back pass, never
  // between a warm-up and what it warms (a read costs milliseconds on some hosts: docs/gpu-state.md).
  std::optional<WindowSamples> window;
  if (gpu_state_) gpu_state_->window_starts();
  for (int i = 0; i < config_.warmup + config_.iters; ++i) {
    const Phase p = phase(i < config_.warmup ? "warm-up" : "timed iterations");
    const auto guard = control_.watch(p);
    world_.barrier(p);
    const double d = exchange.dispatch(p);
    exchange.run_experts(p);
    world_.barrier(p);
    const double m = exchange.combine(p);
    if (i >= config_.warmup) {
      dispatch_us.push_back(d);
      combine_us.push_back(m);
    }
  }
  // Back to back: the same pairs again, each dispatch, the experts and the combine issued as soon
  // as the last returned, with no barrier between them (as a model's layers call them), one host
  // clock around them all on each rank; the exchange keeps nothing of its own between the calls.
  // The fresh-entry times above start every phase together after a barrier; this is the period a
  // rank sees when the pairs follow each other. Before the check, which verifies what is left.
  double my_period_us = 0;
  if (config_.iters > 0) {
    const Phase p = phase("back-to-back");
    const auto guard = control_.watch(p);
    world_.barrier(p);
    exchange.back_to_back(true);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < config_.iters; ++i) {
      exchange.dispatch(p);
      exchange.run_experts(p);
      exchange.combine(p);
    }
    my_period_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                   config_.iters;
    exchange.back_to_back(false);
  }
  if (gpu_state_) window = gpu_state_->window_ends();

  EpWrong wrong;
  EpResult result;
  {
    const Phase p = phase("check");
    const auto guard = control_.watch(p);
    exchange.poison();
    world_.barrier(p);
    exchange.dispatch(p);
    exchange.run_experts(p);
    world_.barrier(p);
    exchange.combine(p);
    result = exchange.result();
    if (faults_ != nullptr) {
      faults_->host_output(result.expert_payload.data(), result.expert_payload.size());
      faults_->host_output(result.combined.data(), result.combined.size() * sizeof(result.combined[0]));
    }
    if (config_.check) {
      wrong = verify(result, c, all, config_.seed, rank, n);
      if (!wrong.first.empty()) {
        std::fprintf(stderr, "commsweep: rank %d (%s): %s: %llu dispatch and %llu combine errors; first: %s\n",
                     rank, world_.host().c_str(), label.str().c_str(),
                     static_cast<unsigned long long>(wrong.dispatch),
                     static_cast<unsigned long long>(wrong.combine), wrong.first.c_str());
        std::fflush(stderr);
      }
    }
  }

  const Phase p = phase("results");
  const EpBytes bytes = received_bytes(result.recv_counts, rank, dispatch_token_bytes(c.hidden, c.dtype));
  const EpBytes combine_bytes = received_bytes(result.recv_counts, rank, combine_token_bytes(c.hidden));
  const auto gather_u64 = [&](std::uint64_t v) {
    std::vector<std::uint64_t> out;
    for (double x : world_.gather(static_cast<double>(v), p)) out.push_back(static_cast<std::uint64_t>(x));
    return out;
  };
  const auto periods = world_.gather(my_period_us, p);
  const auto d_times = world_.gather(median(dispatch_us), p);
  const auto c_times = world_.gather(median(combine_us), p);
  const auto deepep = gather_u64(bytes.deepep);
  const auto fabric = gather_u64(bytes.fabric);
  const auto c_deepep = gather_u64(combine_bytes.deepep);
  const auto c_fabric = gather_u64(combine_bytes.fabric);
  const std::uint64_t d_wrong = world_.sum(wrong.dispatch, p);
  const std::uint64_t c_wrong = world_.sum(wrong.combine, p);
  const auto most = [&](int sms) {  // on rank 0, which prints and writes the row
    const auto all = world_.gather(static_cast<double>(sms), p);
    return all.empty() ? 0 : static_cast<int>(*std::max_element(all.begin(), all.end()));
  };
  std::vector<report::GpuWindow> gpu_state;
  if (gpu_state_) gpu_state = gather_windows(world_, window, p);
  const int d_sms = most(exchange.kernel_sms(true));
  const int c_sms = most(exchange.kernel_sms(false));

  report::EpRow row;
  row.routing = std::string(name_of(c.routing));
  row.tokens = c.tokens;
  row.hidden = c.hidden;
  row.topk = c.topk;
  row.experts = c.experts;
  row.dtype = std::string(name_of(c.dtype));
  row.impl = x.impl;
  row.nccl_path = exchange.nccl_path();
  row.note = exchange.case_note();
  row.iters = config_.iters;
  row.rank_bytes_deepep = deepep;
  row.rank_bytes_fabric = fabric;
  // Not checked (-c 0): N/A in the table, null in the JSON, not a 0 that was never counted.
  const auto checked = [&](std::uint64_t w) { return config_.check ? std::optional<std::uint64_t>(w) : std::nullopt; };
  row.dispatch = combine_phase(d_times, deepep, fabric, checked(d_wrong));
  row.combine = combine_phase(c_times, c_deepep, c_fabric, checked(c_wrong));
  row.dispatch.sms = d_sms;
  row.combine.sms = c_sms;
  row.gpu_state = std::move(gpu_state);
  if (config_.iters > 0 && !periods.empty()) {
    report::EpBackToBack b;
    b.pairs = config_.iters;
    b.rank_period_us = periods;
    b.period_us = *std::max_element(periods.begin(), periods.end());
    row.back_to_back = b;
  }
  return row;
}

std::vector<report::EpRow> EpSweep::run(const std::function<void(const report::EpRow&)>& on_row) {
  std::vector<report::EpRow> rows;
  control_.until_stopped([&] {
    for (const EpCase& c : expand(config_)) {
      // The ranks agree on stopping before a case starts (SIGTERM / SIGINT): rows so far stay.
      control_.arrive(Phase{"ep arrival", Deadline::after(config_.timeout_s)});
      const std::vector<Routing> all = routings(c);  // the same routing for every implementation
      for (const NamedExchange& x : exchanges_) {
        rows.push_back(run_case(c, all, x));
        if (world_.rank() == 0 && on_row) on_row(rows.back());
      }
    }
  });
  return rows;
}

}  // namespace commsweep::ep
