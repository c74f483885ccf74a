#include "run/gpu_sampler.hpp"

#include "run/gpu_window_observer.hpp"

namespace commsweep {
namespace {

double steady_now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

GpuSampler::GpuSampler(health::NvmlApi& nvml, unsigned gpu, std::chrono::milliseconds period)
    : nvml_(nvml), gpu_(gpu), period_(period) {
  // Two reads, so that the first windows span an interval of NVML's own (the second read's
  // length) and not one sample twice.
  read_one();
  read_one();
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

void GpuSampler::read_one() {
  const double start = steady_now_us();
  // A whole window end's reads: the counters, clocks, temperature, power and reasons.
  report::GpuSample s = read_gpu_sample(nvml_, gpu_, WindowEnd::End);
  const double took = steady_now_us() - start;
  std::lock_guard<std::mutex> lock(mutex_);
  before_latest_ = latest_;
  latest_ = s;
  ++reads_;
  read_us_ += took;
}

void GpuSampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    try {
      read_one();
    } catch (...) {
      return;  // NVML's own calls return codes; a read that throws ends the sampling, the last samples stay
    }
    lock.lock();
  }
}

report::GpuSample GpuSampler::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

report::GpuSample GpuSampler::before_latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return before_latest_;
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
