#include "ep/nccl_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ep/layout.hpp"
#include "ep_kernels.hpp"
#include "runtime/cuda_check.hpp"

#define CS_EP_NCCL(call, phase) backend_.check((call), #call, __FILE__, __LINE__, (phase))

namespace commsweep::ep {
namespace {

std::vector<std::size_t> exclusive_prefix(const std::vector<int>& counts) {
  std::vector<std::size_t> offsets(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

double elapsed_us(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

NcclExchange::NcclExchange(World& world, NcclBackend& backend) : world_(world), backend_(backend) {
  CS_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host_counts_), 2 * sizeof(int) * world_.size()));
}

NcclExchange::~NcclExchange() {
  release();
  if (host_counts_ != nullptr) cudaFreeHost(host_counts_);
}

template <typename T>
T* NcclExchange::grow(DeviceMemory& m, std::size_t count) {
  const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 16);
  if (m.bytes < bytes) {
    if (m.ptr != nullptr) CS_CUDA(cudaFree(m.ptr));
    m.ptr = nullptr;
    m.bytes = 0;
    CS_CUDA(cudaMalloc(&m.ptr, bytes));
    m.bytes = bytes;
  }
  return static_cast<T*>(m.ptr);
}

void NcclExchange::release() {
  for (DeviceMemory* m : {&input_, &idx_, &weights_, &slot_, &counts_, &send_offsets_,
                          &recv_counts_dev_, &send_, &recv_, &entry_pos_, &expert_counts_,
                          &expert_base_, &expert_payload_, &expert_output_, &combine_send_,
                          &combine_recv_, &out_}) {
    if (m->ptr != nullptr) cudaFree(m->ptr);
    *m = DeviceMemory{};
  }
}

void NcclExchange::prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) {
  const int n = world_.size();
  const std::size_t tokens = static_cast<std::size_t>(c.tokens);
  case_ = c;
  format_ = record_format(static_cast<std::uint32_t>(c.hidden), static_cast<std::uint32_t>(c.topk),
                          c.dtype == EpDtype::Fp8);
  local_experts_ = experts_per_rank(c.experts, n);
  first_expert_ = world_.rank() * local_experts_;
  // Room for the worst case: every token to every rank it can reach, every rank's tokens here.
  const std::size_t sent_max = tokens * static_cast<std::size_t>(std::min(n, c.topk));
  const std::size_t records_max = tokens * n;
  const std::size_t entries_max = records_max * static_cast<std::size_t>(std::min(c.topk, local_experts_));
  grow<std::uint8_t>(input_, tokens * format_.payload_stride);
  grow<std::int32_t>(idx_, tokens * c.topk);
  grow<float>(weights_, tokens * c.topk);
  grow<int>(slot_, tokens * n);
  grow<int>(counts_, n);
  grow<int>(send_offsets_, n);
  grow<int>(recv_counts_dev_, n);
  grow<std::uint8_t>(send_, sent_max * format_.bytes);
  grow<std::uint8_t>(recv_, records_max * format_.bytes);
  grow<int>(entry_pos_, records_max * c.topk);
  grow<int>(expert_counts_, local_experts_);
  grow<int>(expert_base_, local_experts_);
  grow<std::uint8_t>(expert_payload_, entries_max * format_.payload_stride);
  grow<std::uint16_t>(expert_output_, entries_max * c.hidden);
  grow<std::uint16_t>(combine_send_, records_max * c.hidden);
  grow<std::uint16_t>(combine_recv_, sent_max * c.hidden);
  grow<std::uint16_t>(out_, tokens * c.hidden);

  cudaStream_t stream = backend_.stream();
  CS_CUDA(kernels::prepare_input(static_cast<std::uint8_t*>(input_.ptr), c.tokens, format_, seed,
                                 world_.rank(), stream));
  if (tokens > 0) {
    CS_CUDA(cudaMemcpyAsync(idx_.ptr, mine.experts.data(), mine.experts.size() * 4,
                            cudaMemcpyHostToDevice, stream));
    CS_CUDA(cudaMemcpyAsync(weights_.ptr, mine.weights.data(), mine.weights.size() * 4,
                            cudaMemcpyHostToDevice, stream));
  }
  CS_CUDA(cudaStreamSynchronize(stream));  // the routing vectors are pageable host memory
}

void NcclExchange::alltoallv(const void* send, const std::vector<int>& send_counts, void* recv,
                             const std::vector<int>& recv_counts, std::size_t unit,
                             const Phase& phase) {
  const auto so = exclusive_prefix(send_counts);
  const auto ro = exclusive_prefix(recv_counts);
  const ncclComm_t comm = backend_.comm();
  const cudaStream_t stream = backend_.stream();
  CS_EP_NCCL(ncclGroupStart(), phase);
  for (int p = 0; p < world_.size(); ++p) {
    // Both sides know every count from the count exchange: zero-sized pairs are skipped on both.
    if (send_counts[p] > 0) {
      CS_EP_NCCL(ncclSend(static_cast<const char*>(send) + so[p] * unit, send_counts[p] * unit,
                          ncclUint8, p, comm, stream), phase);
    }
    if (recv_counts[p] > 0) {
      CS_EP_NCCL(ncclRecv(static_cast<char*>(recv) + ro[p] * unit, recv_counts[p] * unit,
                          ncclUint8, p, comm, stream), phase);
    }
  }
  CS_EP_NCCL(ncclGroupEnd(), phase);
}

double NcclExchange::dispatch(const Phase& phase) {
  const int n = world_.size();
  const cudaStream_t stream = backend_.stream();
  const ncclComm_t comm = backend_.comm();
  const auto start = std::chrono::steady_clock::now();

  auto* slot = static_cast<int*>(slot_.ptr);
  auto* counts = static_cast<int*>(counts_.ptr);
  auto* offsets = static_cast<int*>(send_offsets_.ptr);
  auto* recv_counts = static_cast<int*>(recv_counts_dev_.ptr);
  CS_CUDA(kernels::layout(static_cast<const std::int32_t*>(idx_.ptr), case_.tokens, case_.topk,
                          case_.experts, n, slot, counts, offsets, stream));
  CS_CUDA(kernels::pack(static_cast<const std::uint8_t*>(input_.ptr),
                        static_cast<const std::int32_t*>(idx_.ptr),
                        static_cast<const float*>(weights_.ptr), case_.tokens, n, slot, offsets,
                        format_, static_cast<std::uint8_t*>(send_.ptr), stream));
  // The count exchange: the receivers must know the sizes before they post their receives.
  CS_EP_NCCL(ncclGroupStart(), phase);
  for (int p = 0; p < n; ++p) {
    CS_EP_NCCL(ncclSend(counts + p, 1, ncclInt32, p, comm, stream), phase);
    CS_EP_NCCL(ncclRecv(recv_counts + p, 1, ncclInt32, p, comm, stream), phase);
  }
  CS_EP_NCCL(ncclGroupEnd(), phase);
  CS_CUDA(cudaMemcpyAsync(host_counts_, counts, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CS_CUDA(cudaMemcpyAsync(host_counts_ + n, recv_counts, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  backend_.synchronize(phase);
  send_counts_.assign(host_counts_, host_counts_ + n);
  recv_counts_.assign(host_counts_ + n, host_counts_ + 2 * n);
  records_ = 0;
  for (int c : recv_counts_) records_ += c;

  alltoallv(send_.ptr, send_counts_, recv_.ptr, recv_counts_, format_.bytes, phase);
  auto* entry_pos = static_cast<int*>(entry_pos_.ptr);
  if (records_ > 0) {
    CS_CUDA(cudaMemsetAsync(entry_pos, 0xFF, static_cast<std::size_t>(records_) * case_.topk * sizeof(int), stream));
  }
  CS_CUDA(kernels::expert_positions(static_cast<const std::uint8_t*>(recv_.ptr), records_, format_,
                                    first_expert_, local_experts_, entry_pos,
                                    static_cast<int*>(expert_counts_.ptr),
                                    static_cast<int*>(expert_base_.ptr), stream));
  CS_CUDA(kernels::unpack(static_cast<const std::uint8_t*>(recv_.ptr), records_, format_,
                          first_expert_, entry_pos, static_cast<const int*>(expert_base_.ptr),
                          static_cast<std::uint8_t*>(expert_payload_.ptr), stream));
  backend_.synchronize(phase);
  return elapsed_us(start);
}

void NcclExchange::run_experts(const Phase& phase) {
  CS_CUDA(kernels::run_experts(static_cast<const std::uint8_t*>(expert_payload_.ptr),
                               static_cast<const int*>(expert_counts_.ptr),
                               static_cast<const int*>(expert_base_.ptr), local_experts_,
                               first_expert_, format_,
                               static_cast<std::uint16_t*>(expert_output_.ptr), backend_.stream()));
  backend_.synchronize(phase);
}

double NcclExchange::combine(const Phase& phase) {
  const cudaStream_t stream = backend_.stream();
  const auto start = std::chrono::steady_clock::now();
  CS_CUDA(kernels::combine_pack(static_cast<const std::uint8_t*>(recv_.ptr), records_, format_,
                                first_expert_, static_cast<const int*>(entry_pos_.ptr),
                                static_cast<const int*>(expert_base_.ptr),
                                static_cast<const std::uint16_t*>(expert_output_.ptr),
                                static_cast<std::uint16_t*>(combine_send_.ptr), stream));
  alltoallv(combine_send_.ptr, recv_counts_, combine_recv_.ptr, send_counts_,
            2u * static_cast<std::size_t>(case_.hidden), phase);
  CS_CUDA(kernels::combine_reduce(static_cast<const std::uint16_t*>(combine_recv_.ptr), case_.tokens,
                                  world_.size(), case_.hidden, static_cast<const int*>(slot_.ptr),
                                  static_cast<const int*>(send_offsets_.ptr),
                                  static_cast<std::uint16_t*>(out_.ptr), stream));
  backend_.synchronize(phase);
  return elapsed_us(start);
}

void NcclExchange::poison() {
  const cudaStream_t stream = backend_.stream();
  CS_CUDA(cudaMemsetAsync(expert_payload_.ptr, 0xFF, expert_payload_.bytes, stream));
  CS_CUDA(cudaMemsetAsync(out_.ptr, 0xFF, out_.bytes, stream));
  CS_CUDA(cudaStreamSynchronize(stream));
}

EpResult NcclExchange::result() {
  EpResult r;
  r.recv_counts = recv_counts_;
  r.per_expert_counts.resize(local_experts_);
  CS_CUDA(cudaMemcpy(r.per_expert_counts.data(), expert_counts_.ptr, local_experts_ * sizeof(int),
                     cudaMemcpyDeviceToHost));
  std::vector<std::uint8_t> records(static_cast<std::size_t>(records_) * format_.bytes);
  if (!records.empty()) {
    CS_CUDA(cudaMemcpy(records.data(), recv_.ptr, records.size(), cudaMemcpyDeviceToHost));
  }
  read_routes(records.data(), records_, format_, r);
  std::size_t entries = 0;
  for (int c : r.per_expert_counts) entries += static_cast<std::size_t>(std::max(c, 0));
  entries = std::min(entries, expert_payload_.bytes / format_.payload_stride);
  r.payload_bytes = format_.payload_stride;
  r.expert_payload.resize(entries * format_.payload_stride);
  if (!r.expert_payload.empty()) {
    CS_CUDA(cudaMemcpy(r.expert_payload.data(), expert_payload_.ptr, r.expert_payload.size(),
                       cudaMemcpyDeviceToHost));
  }
  r.combined.resize(static_cast<std::size_t>(case_.tokens) * case_.hidden);
  if (!r.combined.empty()) {
    CS_CUDA(cudaMemcpy(r.combined.data(), out_.ptr, r.combined.size() * 2, cudaMemcpyDeviceToHost));
  }
  return r;
}

}  // namespace commsweep::ep
