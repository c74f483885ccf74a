// The exchange written from inside kernels on NCCL's device API (kernels/ep_lsa.cu): tokens go
// once per destination rank straight into the receiver's expert-grouped symmetric buffer over
// NVLink, the experts' weighted partials straight back; one cooperative kernel each way, replayed as a
// CUDA graph, no host synchronisation inside. On several nodes the LSA team is each node's ranks
// (a communicator split by node): NVLink stores within the node, ncclSend / ncclRecv (the
// alltoallv path) to and from other nodes, host clock timing. The alltoallv path
// (nccl_exchange.hpp) stays the reference.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/nccl/nccl_backend.hpp"
#include "ep/gpu/device_memory.hpp"
#include "ep/exchange.hpp"
#include "ep_lsa.hpp"

namespace commsweep::ep {

// Why an lsa exchange whose NCCL policy path is POLICY_PATH ("lsa_ep") cannot run with this
// build and library, or "" where it can.
std::string lsa_unavailable(std::string_view policy_path);

// What makes one lsa exchange another: its --ep-impl name (its messages and notes say it), its
// NCCL version policy path (src/nccl_policy/paths/), and its dispatch and combine kernels. A
// kernel variant is a descriptor in ep/impls/ naming its own (docs/contributing.md).
struct LsaVariant {
  std::string_view name;         // "lsa"
  std::string_view policy_path;  // "lsa_ep"
  const kernels::LsaKernels& kernels;
};

class LsaExchange final : public EpExchange {
 public:
  // blocks: per kernel launch, 0 for as many as suit each case; refused above what stays resident.
  LsaExchange(World& world, NcclBackend& backend, const Phase& setup, int blocks, const LsaVariant& variant);
  ~LsaExchange() override;
  LsaExchange(const LsaExchange&) = delete;
  LsaExchange& operator=(const LsaExchange&) = delete;

  void prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) override;
  double dispatch(const Phase& phase) override;
  void run_experts(const Phase& phase) override;
  double combine(const Phase& phase) override;
  void poison() override;
  EpResult result() override;
  std::string note() const override;
  std::string case_note() const override;
  std::string nccl_path() const override {
    return "NCCL device API: lsa kernels store into peers' symmetric windows (and grouped ncclSend/ncclRecv "
           "between nodes)";
  }
  int kernel_sms(bool dispatch) const override;
  void back_to_back(bool on) override { back_to_back_ = on; }

 private:
  struct NodeComm; // several nodes: this node's ranks (ncclCommSplit), the LSA team
  struct Window;   // the symmetric window: ncclMemAlloc'd, registered with the communicator
  struct DevComm;  // the device communicator: ncclDevCommCreate / ncclDevCommDestroy
  struct Graphs;   // the two kernels captured as CUDA graphs for one case
  void ensure_window(std::size_t bytes, const Phase& phase);
  void ensure_counts_room(int experts, const Phase& phase);  // one node: the counts' LL all-to-all
  ncclComm_t team_comm() const;  // the LSA team's communicator: the node's, or everyone's
  double timed(bool dispatch, const Phase& phase);
  double record_stages(bool dispatch);  // from the kernel's clock; returns its span (us)
  std::vector<const char*> stage_names(bool dispatch) const;
  double dispatch_across_nodes(const Phase& phase);
  double combine_across_nodes(const Phase& phase);
  void read_host_counts();  // across nodes: records_to_ / records_from_ from host_gathered_
  std::vector<int> other_nodes(const std::vector<int>& counts) const;
  // CLOCKED: the kernel's clock reset first, for record_stages (not back to back).
  cudaError_t launch(bool dispatch, bool clocked, cudaStream_t stream);
  // This rank's expert-grouped buffer (in the window) as the dispatch of launch `epoch` fills it
  // (a marked dispatch's region), and the last dispatch's.
  std::uint8_t* grouped_of(unsigned epoch) const;
  std::uint8_t* grouped() const { return grouped_of(dispatches_); }

  World& world_;
  NcclBackend& backend_;
  LsaVariant variant_;
  int blocks_ = 0;         // the device communicator's: barriers for this many blocks
  int sm_blocks_ = 0;      // one block an SM: the fewest SMs of any rank's GPU (<= blocks_)
  int dispatch_blocks_ = 0, combine_blocks_ = 0;  // this case's launches (<= blocks_)
  int asked_blocks_ = 0;   // --lsa-blocks (0: chosen per case)
  double setup_timeout_s_; // -T: each case's window set-up (collective) gets as long
  std::unique_ptr<NodeComm> node_;  // declared first: destroyed after what registers with it
  std::vector<int> lsa_peer_;       // per rank: its index in the LSA team, or -1 (other node)
  std::unique_ptr<DevComm> devcomm_;
  std::unique_ptr<Window> window_;
  std::unique_ptr<Graphs> graphs_;
  bool graphs_work_ = true;
  EpCase case_;
  kernels::LsaArgs args_;
  DeviceBuffer clock_;  // the kernels' span and SMs (LsaArgs::timing.clock)
  DeviceBuffer sync_;   // LsaArgs::signals.sync
  std::vector<std::vector<double>> stage_us_[2];  // per run of this case: dispatch, combine stages
  int sms_[2] = {0, 0};  // SMs that ran a block of the dispatch, of the combine (this case)
  DeviceBuffer input_, idx_, weights_, slot_, chunk_counts_, send_counts_, rank_in_expert_, expert_start_,
      counts_copy_, expert_counts_, expert_base_, expert_output_, out_, lsa_peer_dev_, starts_;
  // Across nodes: the gathered counts (and their host copy), the records and partials that
  // travel by ncclSend / ncclRecv.
  DeviceBuffer gathered_, remote_send_, remote_recv_, remote_partials_;
  std::vector<int> records_to_, records_from_;  // this rank's, per peer (last dispatch)
  PinnedBuffer host_gathered_;
  std::optional<Event> counts_ready_;  // across nodes: the gathered counts are on the host
  std::size_t grouped_bytes_ = 0;  // the expert-grouped buffer's room in the window (a region's)
  unsigned dispatches_ = 0;        // dispatch launches of this case: the last one's epoch
  bool back_to_back_ = false;      // EpExchange::back_to_back: no clock reset, no stages read
};

}  // namespace commsweep::ep
