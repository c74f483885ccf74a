#include "pattern_kernels.hpp"

namespace commsweep::kernels {
namespace {

constexpr int kThreads = 256;

template <int Bytes> struct Word;
template <> struct Word<1> { using type = std::uint8_t; };
template <> struct Word<2> { using type = std::uint16_t; };
template <> struct Word<4> { using type = std::uint32_t; };
template <> struct Word<8> { using type = std::uint64_t; };

unsigned grid_for(std::size_t count) {
  // Grid-stride loops: enough blocks to fill any current GPU, few enough to stay cheap.
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 4096 ? (blocks == 0 ? 1 : blocks) : 4096);
}

template <int Bytes>
__global__ void fill_kernel(void* buffer, std::size_t count, pattern::Spec spec, int rank) {
  using W = typename Word<Bytes>::type;
  auto* p = static_cast<W*>(buffer);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = static_cast<W>(pattern::input_bits(spec, rank, i));
  }
}

template <int Bytes>
__global__ void poison_kernel(void* buffer, std::size_t count, pattern::Expect expect) {
  using W = typename Word<Bytes>::type;
  auto* p = static_cast<W*>(buffer);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = static_cast<W>(~pattern::expected_bits(expect, i));
  }
}

template <int Bytes>
__global__ void verify_kernel(const void* buffer, std::size_t count, pattern::Expect expect,
                              DeviceMismatch* result) {
  using W = typename Word<Bytes>::type;
  const auto* p = static_cast<const W*>(buffer);
  unsigned long long wrong = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (p[i] != static_cast<W>(pattern::expected_bits(expect, i))) {
      if (wrong == 0) first = i;
      ++wrong;
    }
  }
  // Warp-level reduction first, then one atomic per warp that saw anything.
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && wrong != 0) {
    atomicAdd(&result->wrong, wrong);
    atomicMin(&result->first_index, first);
  }
}

template <template <int> class Launch, typename... Args>
cudaError_t by_width(int bytes, Args&&... args) {
  switch (bytes) {
    case 1: Launch<1>{}(args...); break;
    case 2: Launch<2>{}(args...); break;
    case 4: Launch<4>{}(args...); break;
    case 8: Launch<8>{}(args...); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <int B> struct FillLaunch {
  void operator()(void* b, std::size_t n, const pattern::Spec& s, int r, cudaStream_t st) {
    fill_kernel<B><<<grid_for(n), kThreads, 0, st>>>(b, n, s, r);
  }
};
template <int B> struct PoisonLaunch {
  void operator()(void* b, std::size_t n, const pattern::Expect& e, cudaStream_t st) {
    poison_kernel<B><<<grid_for(n), kThreads, 0, st>>>(b, n, e);
  }
};
template <int B> struct VerifyLaunch {
  void operator()(const void* b, std::size_t n, const pattern::Expect& e, DeviceMismatch* m,
                  cudaStream_t st) {
    verify_kernel<B><<<grid_for(n), kThreads, 0, st>>>(b, n, e, m);
  }
};

}  // namespace

cudaError_t launch_fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank,
                        cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width<FillLaunch>(spec.fmt.bytes, buffer, count, spec, rank, stream);
}

cudaError_t launch_poison(void* buffer, std::size_t count, const pattern::Expect& expect,
                          cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width<PoisonLaunch>(expect.spec.fmt.bytes, buffer, count, expect, stream);
}

cudaError_t launch_verify(const void* buffer, std::size_t count, const pattern::Expect& expect,
                          DeviceMismatch* result, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return by_width<VerifyLaunch>(expect.spec.fmt.bytes, buffer, count, expect, result, stream);
}

}  // namespace commsweep::kernels
