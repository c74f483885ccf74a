// Testing only: a backend that makes this rank slow, so that the tests can prove the rules name
// it. `commsweep pairs --fault slow-rank:R` (or slow-leaf:LEAF for each rank of that leaf) makes
// R a slow rail for the outlier rule; the sweeps' `--fault slow:RANK@SIZE` makes a size twice as
// slow for the baseline rules. After each exchange it waits slowdown - 1 times as long as the
// exchange took: the partner waits in its next exchange, as it would for a slow NIC, so both ends
// see it, on either backend.
#pragma once

#include <functional>

#include "comm/backend.hpp"

namespace commsweep::faults {

class SlowedBackend final : public Backend {
 public:
  static constexpr double kSlowdown = 30;  // far past the noise of a loaded, oversubscribed CI machine

  // slowdown: how many times as long each exchange takes (kSlowdown unless --fault-slowdown says
  // otherwise). spin: wait by spinning, not sleeping (the sweeps' --fault slow: exactly 2x, where
  // a sleep's wake-up on a loaded machine would add its own noise). slow_with(peer): whether an
  // exchange with that rank is slowed (every one by default; --fault slow-leaf: only those with
  // ranks outside the leaf, as a bad uplink would).
  explicit SlowedBackend(Backend& inner, double slowdown = kSlowdown, bool spin = false,
                         std::function<bool(int)> slow_with = [](int) { return true; })
      : inner_(inner), slowdown_(slowdown), spin_(spin), slow_with_(std::move(slow_with)) {}

  std::string_view name() const override { return inner_.name(); }
  std::string unsupported(DataType type, RedOp op) const override { return inner_.unsupported(type, op); }
  std::string caveat(DataType type, RedOp op) const override { return inner_.caveat(type, op); }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return inner_.allocate(bytes); }
  void fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) override {
    inner_.fill(buffer, count, spec, rank);
  }
  void poison(void* buffer, std::size_t count, const pattern::Expect& expect) override {
    inner_.poison(buffer, count, expect);
  }
  Mismatch verify(const void* buffer, std::size_t count, const pattern::Expect& expect) override {
    return inner_.verify(buffer, count, expect);
  }
  void corrupt(void* buffer, std::size_t index, std::size_t element_bytes) override {
    inner_.corrupt(buffer, index, element_bytes);
  }
  void synchronize(const Phase& phase) override { inner_.synchronize(phase); }
  std::string asynchronous_error() override { return inner_.asynchronous_error(); }
  void abort_transport(const char* why) override { inner_.abort_transport(why); }
  double run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) override;
  report::NcclChoice last_choice() const override { return inner_.last_choice(); }
  std::string choice_note() const override { return inner_.choice_note(); }
  std::string iteration_clock() const override { return "host"; }  // run() times each iteration itself

 private:
  Backend& inner_;
  double slowdown_;
  bool spin_;
  std::function<bool(int)> slow_with_;
};

}  // namespace commsweep::faults
