#include "nvlink/gpu/copies.hpp"

#include "p2p_kernels.hpp"
#include "pattern_kernels.hpp"
#include "runtime/cuda_check.hpp"

namespace commsweep::p2p {
namespace {

pattern::Expect expect_of(const pattern::Spec& spec, int source) {
  pattern::Expect e{};
  e.spec = spec;
  e.reduced = 0;
  e.src_rank = source;
  return e;
}

}  // namespace

CopyStreams::CopyStreams(int device, int count) : blocks_(kernels::p2p_copy_blocks(device)) {
  for (int i = 0; i < count; ++i) {
    cudaStream_t s = nullptr;
    CS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams_.push_back(s);
    cudaEvent_t e = nullptr;
    CS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    done_.push_back(e);
  }
  CS_CUDA(cudaEventCreate(&start_));
  CS_CUDA(cudaEventCreate(&stop_));
  CS_CUDA(cudaMalloc(&scratch_, 64));
}

CopyStreams::~CopyStreams() {
  for (auto s : streams_) cudaStreamDestroy(s);
  for (auto e : done_) cudaEventDestroy(e);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (scratch_) cudaFree(scratch_);
}

void CopyStreams::issue(const Copy& c, std::size_t bytes, Engine engine, cudaStream_t s) {
  if (engine == Engine::CopyEngine) {
    CS_CUDA(cudaMemcpyAsync(c.dst, c.src, bytes, cudaMemcpyDefault, s));
  } else {
    CS_CUDA(kernels::launch_sm_copy(c.dst, c.src, bytes, blocks_, s));
  }
}

double CopyStreams::time(const std::vector<Copy>& copies, std::size_t bytes, Engine engine, int warmup, int iters,
                         int repeat) {
  if (copies.empty()) return 0;
  if (copies.size() > streams_.size()) throw Error(ErrorKind::Runtime, "nvlink: more copies at once than streams");
  for (std::size_t k = 0; k < copies.size(); ++k)
    for (int i = 0; i < warmup; ++i) issue(copies[k], bytes, engine, streams_[k]);
  cudaStream_t first = streams_[0];
  for (std::size_t k = 1; k < copies.size(); ++k) {
    CS_CUDA(cudaEventRecord(done_[k], streams_[k]));
    CS_CUDA(cudaStreamWaitEvent(first, done_[k], 0));
  }
  CS_CUDA(cudaEventRecord(start_, first));
  for (std::size_t k = 1; k < copies.size(); ++k) CS_CUDA(cudaStreamWaitEvent(streams_[k], start_, 0));
  for (std::size_t k = 0; k < copies.size(); ++k)
    for (int i = 0; i < iters * repeat; ++i) issue(copies[k], bytes, engine, streams_[k]);
  for (std::size_t k = 1; k < copies.size(); ++k) {
    CS_CUDA(cudaEventRecord(done_[k], streams_[k]));
    CS_CUDA(cudaStreamWaitEvent(first, done_[k], 0));
  }
  CS_CUDA(cudaEventRecord(stop_, first));
  CS_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  CS_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

pattern::Spec CopyStreams::spec(std::uint64_t seed, int gpus) {
  pattern::Spec s{};
  s.fmt = {8, pattern::kUnsigned, 0, 0};
  s.op = pattern::kNone;
  s.nranks = gpus;
  s.seed = seed;
  s.period = 1;
  s.vmax = 1;
  s.avg_multiple = 1;
  s.avg_scale = 1;
  return s;
}

void CopyStreams::fill(void* buffer, std::size_t bytes, const pattern::Spec& spec, int source) {
  CS_CUDA(kernels::launch_fill(buffer, bytes / 8, spec, source, streams_[0]));
  CS_CUDA(cudaStreamSynchronize(streams_[0]));
}

void CopyStreams::poison(void* buffer, std::size_t bytes, const pattern::Spec& spec, int source) {
  CS_CUDA(kernels::launch_poison(buffer, bytes / 8, expect_of(spec, source), streams_[0]));
  CS_CUDA(cudaStreamSynchronize(streams_[0]));
}

std::uint64_t CopyStreams::wrong_words(const void* buffer, std::size_t bytes, const pattern::Spec& spec, int source) {
  kernels::DeviceMismatch m{0, ~0ull};
  auto* d = static_cast<kernels::DeviceMismatch*>(scratch_);
  CS_CUDA(cudaMemcpyAsync(d, &m, sizeof m, cudaMemcpyHostToDevice, streams_[0]));
  CS_CUDA(kernels::launch_verify(buffer, bytes / 8, expect_of(spec, source), d, streams_[0]));
  CS_CUDA(cudaMemcpyAsync(&m, d, sizeof m, cudaMemcpyDeviceToHost, streams_[0]));
  CS_CUDA(cudaStreamSynchronize(streams_[0]));
  return m.wrong;
}

void CopyStreams::zero(std::uint32_t* flag) {
  CS_CUDA(cudaMemsetAsync(flag, 0, sizeof *flag, streams_[0]));
  CS_CUDA(cudaStreamSynchronize(streams_[0]));
}

double CopyStreams::ping_pong(std::uint32_t* mine, std::uint32_t* peer_flag, int iters, bool initiator, double timeout_s) {
  auto* elapsed = static_cast<unsigned long long*>(scratch_);
  CS_CUDA(cudaMemsetAsync(elapsed, 0, sizeof *elapsed, streams_[0]));
  CS_CUDA(kernels::launch_ping_pong(mine, peer_flag, iters, initiator, static_cast<unsigned long long>(timeout_s * 1e9),
                                    elapsed, streams_[0]));
  unsigned long long ns = 0;
  CS_CUDA(cudaMemcpyAsync(&ns, elapsed, sizeof ns, cudaMemcpyDeviceToHost, streams_[0]));
  CS_CUDA(cudaStreamSynchronize(streams_[0]));
  if (!initiator) return 0;
  if (ns == ~0ull) return -1;
  // The last iters - 1 round trips, each two one-way trips.
  return static_cast<double>(ns) / 1e3 / (2.0 * (iters - 1));
}

}  // namespace commsweep::p2p
