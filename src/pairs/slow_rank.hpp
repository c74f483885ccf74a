// Testing only (`commsweep pairs --fault slow-rank:R`): a backend that makes rank R a slow
// rail, so that the tests can prove the outlier rule names it. After each of R's exchanges it
// sleeps kSlowdown - 1 times as long as the exchange took: R's partner waits in its next
// exchange, as it would for a slow NIC, so both ends of the rail see it, on either backend.
#pragma once

#include "comm/backend.hpp"

namespace commsweep::pairs {

class SlowRankBackend final : public Backend {
 public:
  static constexpr double kSlowdown = 30;  // far past the noise of a loaded, oversubscribed CI machine

  // SLOWDOWN: how many times as long each exchange takes. SPIN: wait by spinning, not
  // sleeping (the sweeps' --fault slow: exactly 2x, where a sleep's wake-up on a loaded machine
  // would add its own noise).
  explicit SlowRankBackend(Backend& inner, double slowdown = kSlowdown, bool spin = false)
      : inner_(inner), slowdown_(slowdown), spin_(spin) {}

  std::string_view name() const override { return inner_.name(); }
  std::string unsupported(DataType type, RedOp op) const override { return inner_.unsupported(type, op); }
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
  void inject_asynchronous_error() override { inner_.inject_asynchronous_error(); }
  double run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) override;

 private:
  Backend& inner_;
  double slowdown_;
  bool spin_;
};

}  // namespace commsweep::pairs
