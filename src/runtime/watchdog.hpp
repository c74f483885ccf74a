// The last line of defence against hangs: a thread that ends the job when the main thread
// stays in one phase well past its deadline, e.g. inside a blocking driver call that no
// polling wait covers. The polling waits (World::wait, the nccl backend) fire first and
// attribute the hang; this thread fires only after their grace periods have passed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "runtime/world.hpp"

namespace commsweep {

class Watchdog {
 public:
  explicit Watchdog(World& world);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Marks the phase the main thread is in; the guard leaves it when destroyed.
  class Guard {
   public:
    explicit Guard(Watchdog& dog) : dog_(&dog) {}
    Guard(Guard&& other) noexcept : dog_(other.dog_) { other.dog_ = nullptr; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    Guard& operator=(Guard&&) = delete;
    ~Guard() {
      if (dog_ != nullptr) dog_->leave();
    }

   private:
    Watchdog* dog_;
  };
  [[nodiscard]] Guard watch(const Phase& phase);

 private:
  void leave();
  void run();

  World& world_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Phase> phase_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace commsweep
