// The last line of defence against hangs: a thread that ends the job when the main thread
// stays in one phase well past its deadline, e.g. inside a blocking driver call that no
// polling wait covers. The polling waits (World::wait, the nccl backend) fire first and
// attribute the hang; this thread fires only after their grace periods have passed, so that
// on the late rank itself it leaves the job's end to the ranks that waited (rank 0 names it)
// and speaks only if they could not: then it names its own rank as the one that never came.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

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

  // A probe of the transport's health (Backend::asynchronous_error), polled with every tick
  // (200 ms); a non-empty answer ends the job (World::fail) with exit code 3 and that message,
  // even while the main thread is blocked inside a call. On rank 0 every tick also takes the
  // failure reports of other ranks (World::poll_failure_reports). Cleared when the
  // registration is destroyed: hold it no longer than what the probe looks at.
  class HealthCheck {
   public:
    explicit HealthCheck(Watchdog* dog = nullptr) : dog_(dog) {}
    HealthCheck(HealthCheck&& other) noexcept : dog_(other.dog_) { other.dog_ = nullptr; }
    HealthCheck& operator=(HealthCheck&& other) noexcept {
      std::swap(dog_, other.dog_);
      return *this;
    }
    HealthCheck(const HealthCheck&) = delete;
    HealthCheck& operator=(const HealthCheck&) = delete;
    ~HealthCheck() {
      if (dog_ != nullptr) dog_->set_probe(nullptr);
    }

   private:
    Watchdog* dog_;
  };
  [[nodiscard]] HealthCheck check_health(std::function<std::string()> probe);

 private:
  void leave();
  void run();
  void set_probe(std::function<std::string()> probe);
  void check_probe();  // with mutex_ held
  [[noreturn]] void end_overrun(double past_s);  // with mutex_ held and a phase
  // "commsweep: rank R (host): WHAT; ending the job", then World::fail with CODE.
  [[noreturn]] void end_job(const std::string& what, int code);

  World& world_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Phase> phase_;
  std::function<std::string()> probe_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace commsweep
