#include "pairs/exchange.hpp"

#include <cstdio>

#include "collectives/collective_test.hpp"

namespace commsweep::pairs {

PairExchange::PairExchange(World& world, Backend& backend, RunControl& control, const ExchangeConfig& config)
    : world_(world), backend_(backend), control_(control), config_(config) {
  const std::size_t bytes = config_.count * element_size(config_.type);
  send_ = backend_.allocate(bytes);
  recv_ = backend_.allocate(bytes);
}

// Both directions at once: the partner is the send and the receive peer.
CollectiveArgs PairExchange::exchange_args(int partner) {
  CollectiveArgs args;
  args.call = &collective_call("sendrecv");
  args.send = send_->data();
  args.recv = recv_->data();
  args.count = config_.count;
  args.type = config_.type;
  args.send_peer = args.recv_peer = partner;
  return args;
}

Phase PairExchange::phase(const std::string& label, const char* step) const {
  return Phase{label + " (" + step + ")", Deadline::after(config_.timeout_s)};
}

// The pattern of the partner's rank is what must arrive: the sweeps' own fill and verify.
std::uint64_t PairExchange::verify(int partner, const std::string& label) {
  const int rank = world_.rank();
  const pattern::Spec spec = make_spec(config_.type, RedOp::None, world_.size(), config_.seed);
  const pattern::Expect expect = expect::copied_from(spec, partner, 0);
  const CollectiveArgs args = exchange_args(partner);
  std::uint64_t wrong = 0;
  for (int i = 0; i < config_.check; ++i) {
    const Phase p = phase(label, "check");
    const auto guard = control_.watch(p);
    backend_.poison(recv_->data(), config_.count, expect);
    backend_.fill(send_->data(), config_.count, spec, rank);
    backend_.run(args, TimingOptions{1, false, 0, false}, p);
    const Mismatch m = backend_.verify(recv_->data(), config_.count, expect);
    if (m.wrong > 0) {
      std::fprintf(stderr,
                   "commsweep: rank %d (%s): %llu wrong elements received from rank %d in %s; first "
                   "at element %llu: expected 0x%llx, got 0x%llx\n",
                   rank, world_.host().c_str(), static_cast<unsigned long long>(m.wrong), partner,
                   label.c_str(), static_cast<unsigned long long>(m.first_index),
                   static_cast<unsigned long long>(m.expected), static_cast<unsigned long long>(m.got));
      std::fflush(stderr);
    }
    wrong += m.wrong;
  }
  return wrong;
}

RankRound PairExchange::run_round(int partner, const std::string& label) {
  RankRound out;
  out.partner = partner;
  control_.arrive(phase(label, "arrival"));
  const CollectiveArgs args = exchange_args(partner);
  const pattern::Spec spec = make_spec(config_.type, RedOp::None, world_.size(), config_.seed);
  if (partner >= 0) {
    backend_.fill(send_->data(), config_.count, spec, world_.rank());
    if (config_.warmup > 0) {
      const Phase p = phase(label, "warm-up");
      const auto guard = control_.watch(p);
      backend_.run(args, TimingOptions{config_.warmup, false, 0, false}, p);
    }
  }
  {
    // Every pair of the round starts together, as in a collective over all nodes: the pairs
    // load the fabric's spine at the same time, as they do in a real job.
    const Phase p = phase(label, "timed iterations");
    const auto guard = control_.watch(p);
    backend_.synchronize(p);
    world_.barrier(p);
    if (partner >= 0) out.time_us = backend_.run(args, TimingOptions{config_.iters, false, 0, false}, p);
  }
  if (partner >= 0 && config_.check > 0) out.wrong = verify(partner, label);
  return out;
}

}  // namespace commsweep::pairs
