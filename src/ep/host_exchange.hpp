// The exchange on host buffers over MPI (the mpi backend): MPI_Alltoall for the counts,
// MPI_Alltoallv for the records, the same steps and arithmetic as the CUDA kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "ep/exchange.hpp"
#include "ep/layout.hpp"
#include "pattern/ep_record.hpp"

namespace commsweep::ep {

class HostExchange final : public EpExchange {
 public:
  explicit HostExchange(World& world) : world_(world) {}
  void prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) override;
  double dispatch(const Phase& phase) override;
  void run_experts(const Phase& phase) override;
  double combine(const Phase& phase) override;
  void poison() override;
  EpResult result() override;
  std::string nccl_path() const override { return "n/a (mpi backend)"; }

 private:
  // MPI_Alltoallv of counts x unit bytes; recv has room for the receive counts.
  void exchange_bytes(const void* send, const std::vector<int>& send_counts, void* recv,
                      const std::vector<int>& recv_counts, std::size_t unit, const Phase& phase);

  World& world_;
  EpCase case_;
  RecordFormat format_{};
  Routing routing_;
  std::vector<std::uint8_t> input_;  // tokens x payload_bytes
  DispatchLayout layout_;
  std::vector<int> recv_counts_;
  std::vector<std::uint8_t> send_records_;
  std::vector<std::uint8_t> recv_records_;
  std::vector<int> entry_pos_;       // records x topk: entry within its expert's segment, or -1
  std::vector<int> expert_counts_;
  std::vector<int> expert_base_;     // first entry of each local expert's segment
  std::vector<std::uint8_t> expert_payload_;  // entries x payload_bytes
  std::vector<std::uint16_t> expert_output_;  // entries x hidden
  std::vector<std::uint16_t> combine_send_;   // records x hidden
  std::vector<std::uint16_t> combine_recv_;   // sent tokens x hidden
  std::vector<std::uint16_t> combined_;       // tokens x hidden
};

}  // namespace commsweep::ep
