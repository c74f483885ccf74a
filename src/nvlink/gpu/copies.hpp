// Timed copies through a PeerWindow on this rank's GPU: several at once, each on its own stream
// (a one-to-all's copies run together), by copy engine (cudaMemcpyAsync) or by SM (kernels/p2p.cu),
// warm-up copies first and the timed ones between two events; and the pattern's fill, poison and
// bit-exact check of a receive slot (kernels/pattern.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pattern/pattern.hpp"

namespace commsweep::p2p {

enum class Engine { CopyEngine, Sm };

struct Copy {
  void* dst = nullptr;
  const void* src = nullptr;
};

class CopyStreams {
 public:
  // COUNT streams (the most copies one rank runs at once) and the SM copy's block count.
  CopyStreams(int device, int count);
  ~CopyStreams();
  CopyStreams(const CopyStreams&) = delete;
  CopyStreams& operator=(const CopyStreams&) = delete;

  // WARMUP untimed rounds, then ITERS x REPEAT timed ones of every copy of BYTES at once;
  // returns the milliseconds of the timed ones (the last copy's end).
  double time(const std::vector<Copy>& copies, std::size_t bytes, Engine engine, int warmup, int iters, int repeat);

  // The data pattern of GPU SOURCE (8-byte words seeded with SEED).
  static pattern::Spec spec(std::uint64_t seed, int gpus);
  void fill(void* buffer, std::size_t bytes, const pattern::Spec& spec, int source);
  void poison(void* buffer, std::size_t bytes, const pattern::Spec& spec, int source);
  // The words of BUFFER that differ from SOURCE's data.
  std::uint64_t wrong_words(const void* buffer, std::size_t bytes, const pattern::Spec& spec, int source);

  // The latency test's one thread (kernels/p2p_kernels.hpp); microseconds one way, or < 0 when the
  // flag did not come within TIMEOUT_S. Only the initiator's figure is the test's.
  double ping_pong(std::uint32_t* mine, std::uint32_t* peer_flag, int iters, bool initiator, double timeout_s);
  void zero(std::uint32_t* flag);

 private:
  void issue(const Copy& c, std::size_t bytes, Engine engine, cudaStream_t s);
  std::vector<cudaStream_t> streams_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<cudaEvent_t> done_;
  void* scratch_ = nullptr;  // a DeviceMismatch, or the ping-pong's elapsed time
  int blocks_ = 0;
};

}  // namespace commsweep::p2p
