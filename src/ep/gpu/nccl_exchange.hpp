// The exchange on GPUs over NCCL: kernels (kernels/ep_kernels.cu) for the layout, packing,
// unpacking and the combine's reductions; a count exchange, then grouped ncclSend / ncclRecv
// (an alltoallv) for the records and, reversed, for the combine.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/nccl/nccl_backend.hpp"
#include "ep/gpu/device_memory.hpp"
#include "ep/exchange.hpp"
#include "pattern/ep_record.hpp"

namespace commsweep::ep {

class NcclExchange final : public EpExchange {
 public:
  NcclExchange(World& world, NcclBackend& backend);
  ~NcclExchange() override;
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  void prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) override;
  std::string nccl_path() const override { return "grouped ncclSend/ncclRecv (NCCL point-to-point)"; }
  double dispatch(const Phase& phase) override;
  void run_experts(const Phase& phase) override;
  double combine(const Phase& phase) override;
  void poison() override;
  EpResult result() override;

 private:
  World& world_;
  NcclBackend& backend_;
  EpCase case_;
  RecordFormat format_{};
  int local_experts_ = 0;
  int first_expert_ = 0;
  std::vector<int> send_counts_;
  std::vector<int> recv_counts_;
  int records_ = 0;
  PinnedBuffer host_counts_;  // send counts, then receive counts
  DeviceBuffer input_, idx_, weights_, slot_, counts_, send_offsets_, recv_counts_dev_, send_,
      recv_, entry_pos_, expert_counts_, expert_base_, expert_payload_, expert_output_,
      combine_send_, combine_recv_, out_;
};

}  // namespace commsweep::ep
