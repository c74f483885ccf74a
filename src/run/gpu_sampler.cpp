#include "run/gpu_sampler.hpp"

#include <cmath>

#include "run/gpu_window_observer.hpp"

namespace commsweep {
namespace {

double steady_now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Slots kept: a window's end takes the last or the one before; its start's two were copied.
constexpr std::size_t kKeptSlots = 4;

}  // namespace

long slot_at(double steady_us, std::chrono::milliseconds period) {
  return static_cast<long>(std::floor(steady_us / (static_cast<double>(period.count()) * 1e3)));
}

SlotSpan window_slots(long start_slot, long end_slot) {
  if (end_slot > start_slot) return {start_slot - 1, end_slot - 1};
  return {start_slot - 2, start_slot - 1};
}

GpuSampler::GpuSampler(health::NvmlApi& nvml, unsigned gpu, std::chrono::milliseconds period)
    : nvml_(nvml), gpu_(gpu), period_(period) {
  // Two reads, kept as the two slots before this one: read before any window starts, they are
  // what the first windows span (another rank's first windows may take other moments).
  const long now = now_slot();
  read_one(now - 2);
  read_one(now - 1);
  thread_ = std::thread([this] { loop(); });
}

GpuSampler::~GpuSampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

long GpuSampler::now_slot() const { return slot_at(steady_now_us(), period_); }

void GpuSampler::read_one(long slot) {
  const double start = steady_now_us();
  // A whole window end's reads: the counters, clocks, temperature, power and reasons.
  report::GpuSample s = read_gpu_sample(nvml_, gpu_, WindowEnd::End);
  const double took = steady_now_us() - start;
  std::lock_guard<std::mutex> lock(mutex_);
  kept_.push_back({slot, s});
  if (kept_.size() > kKeptSlots) kept_.pop_front();
  ++reads_;
  read_us_ += took;
}

void GpuSampler::loop() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // The next slot's start on the host's clock: every rank's sampler wakes at the same moments.
    const long next = now_slot() + 1;
    const Clock::time_point at{std::chrono::duration_cast<Clock::duration>(period_ * next)};
    if (wake_.wait_until(lock, at, [this] { return stop_; })) return;
    lock.unlock();
    try {
      read_one(next);
    } catch (...) {
      return;  // NVML's own calls return codes; a read that throws ends the sampling, the kept samples stay
    }
    lock.lock();
  }
}

const SlotSample& GpuSampler::pick(long slot) const {
  const SlotSample* best = nullptr;
  for (const SlotSample& k : kept_)
    if (k.slot <= slot) best = &k;
  return best ? *best : kept_.front();
}

const SlotSample& GpuSampler::before(const SlotSample& sample) const {
  const SlotSample* best = nullptr;
  for (const SlotSample& k : kept_)
    if (k.slot < sample.slot) best = &k;
  return best ? *best : sample;
}

SamplerMark GpuSampler::mark() const {
  SamplerMark m;
  m.slot = now_slot();
  std::lock_guard<std::mutex> lock(mutex_);
  m.one_before = pick(m.slot - 1);
  // Its predecessor, also where a slot was not read: the two differ, so the window spans an
  // interval (the constructor's two reads make one at least).
  m.two_before = before(m.one_before);
  return m;
}

std::pair<SlotSample, SlotSample> GpuSampler::window(const SamplerMark& mark) const {
  const SlotSpan span = window_slots(mark.slot, now_slot());
  if (span.start != mark.slot - 2) {
    std::lock_guard<std::mutex> lock(mutex_);
    const SlotSample& end = pick(span.end);
    if (end.slot > mark.one_before.slot) return {mark.one_before, end};
  }
  return {mark.two_before, mark.one_before};
}

long GpuSampler::reads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

double GpuSampler::read_us() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return read_us_;
}

}  // namespace commsweep
