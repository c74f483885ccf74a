#include "ep/host_exchange.hpp"

#include <climits>
#include <cmath>
#include <cstring>

#include "ep/reference.hpp"
#include "pattern/ep_pattern.hpp"
#include "core/error.hpp"
#include "runtime/mpi_check.hpp"

namespace commsweep::ep {
namespace {

std::vector<int> exclusive_prefix(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

int total(const std::vector<int>& counts) {
  long long sum = 0;
  for (int c : counts) sum += c;
  return static_cast<int>(sum);
}

}  // namespace

void HostExchange::prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) {
  case_ = c;
  routing_ = mine;
  format_ = record_format(static_cast<std::uint32_t>(c.hidden), static_cast<std::uint32_t>(c.topk),
                          c.dtype == EpDtype::Fp8);
  input_.assign(static_cast<std::size_t>(c.tokens) * format_.payload_bytes, 0);
  for (int t = 0; t < c.tokens; ++t) {
    const TokenInput in = token_input(c, seed, world_.rank(), t);
    std::uint8_t* dst = &input_[static_cast<std::size_t>(t) * format_.payload_bytes];
    if (format_.fp8) {
      std::memcpy(dst, in.fp8.data(), in.fp8.size());
      std::memcpy(dst + format_.scales_offset, in.scales.data(), in.scales.size() * 4);
    } else {
      std::memcpy(dst, in.bf16.data(), in.bf16.size() * 2);
    }
  }
  combined_.assign(static_cast<std::size_t>(c.tokens) * c.hidden, 0xFFFF);
}

void HostExchange::exchange_bytes(const void* send, const std::vector<int>& send_counts,
                                  void* recv, const std::vector<int>& recv_counts,
                                  std::size_t unit, const Phase& phase) {
  const int n = world_.size();
  std::vector<int> sc(n), sd(n), rc(n), rd(n);
  long long so = 0, ro = 0;
  for (int r = 0; r < n; ++r) {
    const long long s = static_cast<long long>(send_counts[r]) * static_cast<long long>(unit);
    const long long q = static_cast<long long>(recv_counts[r]) * static_cast<long long>(unit);
    if (so + s > INT_MAX || ro + q > INT_MAX) {
      throw Error(ErrorKind::Usage, "the mpi backend's MPI_Alltoallv counts in int: this case "
                                    "moves more than 2 GiB per rank; use fewer --tokens");
    }
    sc[r] = static_cast<int>(s);
    sd[r] = static_cast<int>(so);
    rc[r] = static_cast<int>(q);
    rd[r] = static_cast<int>(ro);
    so += s;
    ro += q;
  }
  MPI_Request req;
  CS_MPI(MPI_Ialltoallv(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(),
                        rd.data(), MPI_BYTE, world_.comm(), &req));
  world_.wait(&req, phase);
}

double HostExchange::dispatch(const Phase& phase) {
  const int n = world_.size();
  const int k = case_.topk;
  const double start = MPI_Wtime();

  layout_ = compute_layout(routing_, case_.experts, n);
  recv_counts_.assign(n, 0);
  MPI_Request req;
  CS_MPI(MPI_Ialltoall(layout_.send_counts.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT,
                       world_.comm(), &req));
  world_.wait(&req, phase);

  // Pack: one record per (token, destination rank), tokens in order within a destination.
  send_records_.resize(static_cast<std::size_t>(total(layout_.send_counts)) * format_.bytes);
  for (int t = 0; t < case_.tokens; ++t) {
    for (int d = 0; d < n; ++d) {
      const int s = layout_.slot[static_cast<std::size_t>(t) * n + d];
      if (s < 0) continue;
      std::uint8_t* rec =
          &send_records_[static_cast<std::size_t>(layout_.send_offsets[d] + s) * format_.bytes];
      std::memcpy(rec, &input_[static_cast<std::size_t>(t) * format_.payload_bytes],
                  format_.payload_bytes);
      std::memcpy(rec + format_.idx_offset, &routing_.experts[static_cast<std::size_t>(t) * k], 4u * k);
      std::memcpy(rec + format_.weight_offset, &routing_.weights[static_cast<std::size_t>(t) * k], 4u * k);
    }
  }
  recv_records_.resize(static_cast<std::size_t>(total(recv_counts_)) * format_.bytes);
  exchange_bytes(send_records_.data(), layout_.send_counts, recv_records_.data(), recv_counts_,
                 format_.bytes, phase);

  // Unpack into the expert-grouped layout: entries of a local expert in record order.
  const int records = total(recv_counts_);
  const int local = experts_per_rank(case_.experts, n);
  const int first_expert = world_.rank() * local;
  entry_pos_.assign(static_cast<std::size_t>(records) * k, -1);
  expert_counts_.assign(local, 0);
  for (int r = 0; r < records; ++r) {
    const auto* idx = reinterpret_cast<const std::int32_t*>(
        &recv_records_[static_cast<std::size_t>(r) * format_.bytes + format_.idx_offset]);
    for (int j = 0; j < k; ++j) {
      const int l = idx[j] - first_expert;
      if (l >= 0 && l < local) entry_pos_[static_cast<std::size_t>(r) * k + j] = expert_counts_[l]++;
    }
  }
  expert_base_ = exclusive_prefix(expert_counts_);
  expert_payload_.resize(static_cast<std::size_t>(total(expert_counts_)) * format_.payload_bytes);
  for (int r = 0; r < records; ++r) {
    const std::uint8_t* rec = &recv_records_[static_cast<std::size_t>(r) * format_.bytes];
    const auto* idx = reinterpret_cast<const std::int32_t*>(rec + format_.idx_offset);
    for (int j = 0; j < k; ++j) {
      const int p = entry_pos_[static_cast<std::size_t>(r) * k + j];
      if (p < 0) continue;
      const int entry = expert_base_[idx[j] - first_expert] + p;
      std::memcpy(&expert_payload_[static_cast<std::size_t>(entry) * format_.payload_bytes], rec,
                  format_.payload_bytes);
    }
  }
  return (MPI_Wtime() - start) * 1e6;
}

void HostExchange::run_experts(const Phase&) {
  const int h = case_.hidden;
  const int local = experts_per_rank(case_.experts, world_.size());
  const int first_expert = world_.rank() * local;
  expert_output_.resize(static_cast<std::size_t>(total(expert_counts_)) * h);
  for (int l = 0; l < local; ++l) {
    const int expert = first_expert + l;
    for (int p = 0; p < expert_counts_[l]; ++p) {
      const std::size_t entry = static_cast<std::size_t>(expert_base_[l] + p);
      const std::uint8_t* in = &expert_payload_[entry * format_.payload_bytes];
      std::uint16_t* out = &expert_output_[entry * h];
      for (int e = 0; e < h; ++e) {
        float value;
        if (format_.fp8) {
          float scale;
          std::memcpy(&scale, in + format_.scales_offset + 4u * (e / kFp8BlockElements), 4);
          value = dequantize_e4m3(in[e], scale);
        } else {
          std::uint16_t bits;
          std::memcpy(&bits, in + 2u * e, 2);
          value = bf16_to_float(bits);
        }
        out[e] = expert_output_bits(value, expert);
      }
    }
  }
}

double HostExchange::combine(const Phase& phase) {
  const int n = world_.size();
  const int k = case_.topk;
  const int h = case_.hidden;
  const int local = experts_per_rank(case_.experts, n);
  const int first_expert = world_.rank() * local;
  const double start = MPI_Wtime();

  // At the experts' rank: one weighted partial sum per received record, slots in order.
  const int records = total(recv_counts_);
  combine_send_.resize(static_cast<std::size_t>(records) * h);
  std::vector<float> partial(h);
  for (int r = 0; r < records; ++r) {
    const std::uint8_t* rec = &recv_records_[static_cast<std::size_t>(r) * format_.bytes];
    const auto* idx = reinterpret_cast<const std::int32_t*>(rec + format_.idx_offset);
    const auto* weight = reinterpret_cast<const float*>(rec + format_.weight_offset);
    std::fill(partial.begin(), partial.end(), 0.0f);
    for (int j = 0; j < k; ++j) {
      const int p = entry_pos_[static_cast<std::size_t>(r) * k + j];
      if (p < 0) continue;
      const std::uint16_t* y =
          &expert_output_[static_cast<std::size_t>(expert_base_[idx[j] - first_expert] + p) * h];
      for (int e = 0; e < h; ++e) partial[e] = std::fmaf(weight[j], bf16_to_float(y[e]), partial[e]);
    }
    std::uint16_t* out = &combine_send_[static_cast<std::size_t>(r) * h];
    for (int e = 0; e < h; ++e) out[e] = float_to_bf16(partial[e]);
  }
  combine_recv_.resize(static_cast<std::size_t>(total(layout_.send_counts)) * h);
  exchange_bytes(combine_send_.data(), recv_counts_, combine_recv_.data(), layout_.send_counts,
                 2u * h, phase);

  // At the source: the partials of each token summed over ranks in ascending order.
  std::vector<float> acc(h);
  for (int t = 0; t < case_.tokens; ++t) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int d = 0; d < n; ++d) {
      const int s = layout_.slot[static_cast<std::size_t>(t) * n + d];
      if (s < 0) continue;
      const std::uint16_t* part =
          &combine_recv_[static_cast<std::size_t>(layout_.send_offsets[d] + s) * h];
      for (int e = 0; e < h; ++e) acc[e] += bf16_to_float(part[e]);
    }
    std::uint16_t* out = &combined_[static_cast<std::size_t>(t) * h];
    for (int e = 0; e < h; ++e) out[e] = float_to_bf16(acc[e]);
  }
  return (MPI_Wtime() - start) * 1e6;
}

void HostExchange::poison() {
  std::fill(expert_payload_.begin(), expert_payload_.end(), 0xFF);
  std::fill(combined_.begin(), combined_.end(), 0xFFFF);
}

EpResult HostExchange::result() {
  EpResult r;
  r.recv_counts = recv_counts_;
  r.per_expert_counts = expert_counts_;
  read_routes(recv_records_.data(), total(recv_counts_), format_, r);
  r.expert_payload = expert_payload_;
  r.payload_bytes = format_.payload_bytes;
  r.combined = combined_;
  return r;
}

}  // namespace commsweep::ep
