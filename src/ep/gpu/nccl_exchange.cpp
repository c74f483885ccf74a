#include "ep/gpu/nccl_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ep/gpu/device_result.hpp"
#include "ep/gpu/grouped_send_recv.hpp"
#include "ep/layout.hpp"
#include "ep_kernels.hpp"
#include "runtime/cuda_check.hpp"

#define CS_EP_NCCL(call, phase) backend_.check((call), #call, __FILE__, __LINE__, (phase))

namespace commsweep::ep {

NcclExchange::NcclExchange(World& world, NcclBackend& backend) : world_(world), backend_(backend) {
  host_counts_.grow<int>(2 * static_cast<std::size_t>(world_.size()));
}

NcclExchange::~NcclExchange() = default;

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
  input_.grow<std::uint8_t>(tokens * format_.payload_stride);
  idx_.grow<std::int32_t>(tokens * c.topk);
  weights_.grow<float>(tokens * c.topk);
  slot_.grow<int>(tokens * n);
  counts_.grow<int>(n);
  send_offsets_.grow<int>(n);
  recv_counts_dev_.grow<int>(n);
  send_.grow<std::uint8_t>(sent_max * format_.bytes);
  recv_.grow<std::uint8_t>(records_max * format_.bytes);
  entry_pos_.grow<int>(records_max * c.topk);
  expert_counts_.grow<int>(local_experts_);
  expert_base_.grow<int>(local_experts_);
  expert_payload_.grow<std::uint8_t>(entries_max * format_.payload_stride);
  expert_output_.grow<std::uint16_t>(entries_max * c.hidden);
  combine_send_.grow<std::uint16_t>(records_max * c.hidden);
  combine_recv_.grow<std::uint16_t>(sent_max * c.hidden);
  out_.grow<std::uint16_t>(tokens * c.hidden);

  upload_case(input_.get<std::uint8_t>(), idx_.get<std::int32_t>(), weights_.get<float>(), c.tokens,
              format_, mine, seed, world_.rank(), backend_.stream());
}

double NcclExchange::dispatch(const Phase& phase) {
  const int n = world_.size();
  const cudaStream_t stream = backend_.stream();
  const ncclComm_t comm = backend_.comm();
  const auto start = std::chrono::steady_clock::now();

  auto* slot = slot_.get<int>();
  auto* counts = counts_.get<int>();
  auto* offsets = send_offsets_.get<int>();
  auto* recv_counts = recv_counts_dev_.get<int>();
  CS_CUDA(kernels::layout(idx_.get<const std::int32_t>(), case_.tokens, case_.topk,
                          case_.experts, n, slot, counts, offsets, stream));
  CS_CUDA(kernels::pack(input_.get<const std::uint8_t>(),
                        idx_.get<const std::int32_t>(),
                        weights_.get<const float>(), case_.tokens, n, slot, offsets,
                        format_, send_.get<std::uint8_t>(), stream));
  // The count exchange: the receivers must know the sizes before they post their receives.
  CS_EP_NCCL(ncclGroupStart(), phase);
  for (int p = 0; p < n; ++p) {
    CS_EP_NCCL(ncclSend(counts + p, 1, ncclInt32, p, comm, stream), phase);
    CS_EP_NCCL(ncclRecv(recv_counts + p, 1, ncclInt32, p, comm, stream), phase);
  }
  CS_EP_NCCL(ncclGroupEnd(), phase);
  int* host_counts = host_counts_.get<int>();
  CS_CUDA(cudaMemcpyAsync(host_counts, counts, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CS_CUDA(cudaMemcpyAsync(host_counts + n, recv_counts, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  backend_.synchronize(phase);
  send_counts_.assign(host_counts, host_counts + n);
  recv_counts_.assign(host_counts + n, host_counts + 2 * n);
  records_ = 0;
  for (int c : recv_counts_) records_ += c;

  grouped_send_recv(backend_, send_.get(), packed(send_counts_), recv_.get(), packed(recv_counts_), format_.bytes, phase);
  auto* entry_pos = entry_pos_.get<int>();
  if (records_ > 0) {
    CS_CUDA(cudaMemsetAsync(entry_pos, 0xFF, static_cast<std::size_t>(records_) * case_.topk * sizeof(int), stream));
  }
  CS_CUDA(kernels::expert_positions(recv_.get<const std::uint8_t>(), records_, format_,
                                    first_expert_, local_experts_, entry_pos,
                                    expert_counts_.get<int>(),
                                    expert_base_.get<int>(), stream));
  CS_CUDA(kernels::unpack(recv_.get<const std::uint8_t>(), records_, format_,
                          first_expert_, entry_pos, expert_base_.get<const int>(),
                          expert_payload_.get<std::uint8_t>(), stream));
  backend_.synchronize(phase);
  return elapsed_us(start);
}

void NcclExchange::run_experts(const Phase& phase) {
  CS_CUDA(kernels::run_experts(expert_payload_.get<const std::uint8_t>(),
                               expert_counts_.get<const int>(),
                               expert_base_.get<const int>(), local_experts_, 1,
                               first_expert_, format_,
                               expert_output_.get<std::uint16_t>(), backend_.stream()));
  backend_.synchronize(phase);
}

double NcclExchange::combine(const Phase& phase) {
  const cudaStream_t stream = backend_.stream();
  const auto start = std::chrono::steady_clock::now();
  CS_CUDA(kernels::combine_pack(recv_.get<const std::uint8_t>(), records_, format_,
                                first_expert_, entry_pos_.get<const int>(),
                                expert_base_.get<const int>(),
                                expert_output_.get<const std::uint16_t>(),
                                combine_send_.get<std::uint16_t>(), stream));
  grouped_send_recv(backend_, combine_send_.get(), packed(recv_counts_), combine_recv_.get(), packed(send_counts_),
                    2u * static_cast<std::size_t>(case_.hidden), phase);
  CS_CUDA(kernels::combine_reduce(combine_recv_.get<const std::uint16_t>(), case_.tokens,
                                  world_.size(), case_.hidden, slot_.get<const int>(),
                                  send_offsets_.get<const int>(),
                                  out_.get<std::uint16_t>(), stream));
  backend_.synchronize(phase);
  return elapsed_us(start);
}

void NcclExchange::poison() {
  const cudaStream_t stream = backend_.stream();
  CS_CUDA(cudaMemsetAsync(expert_payload_.get(), 0xFF, expert_payload_.bytes(), stream));
  CS_CUDA(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream));
  CS_CUDA(cudaStreamSynchronize(stream));
}

EpResult NcclExchange::result() {
  EpDeviceView view;
  view.recv_counts = recv_counts_;
  view.records = recv_.get<const std::uint8_t>();
  view.format = format_;
  view.expert_counts = expert_counts_.get<const int>();
  view.local_experts = local_experts_;
  view.expert_payload = expert_payload_.get<const std::uint8_t>();
  view.expert_payload_bytes = expert_payload_.bytes();
  view.combined = out_.get<const std::uint16_t>();
  view.tokens = case_.tokens;
  return read_device_result(view);
}

}  // namespace commsweep::ep
