// The dispatch / combine exchange on one backend. The sweep drives it; verification reads
// what it leaves (EpResult) and compares with the host reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ep/ep_config.hpp"
#include "ep/routing.hpp"
#include "pattern/ep_record.hpp"
#include "runtime/world.hpp"

namespace commsweep::ep {

// What one rank holds after dispatch and combine, on the host.
struct EpResult {
  std::vector<int> recv_counts;          // per source rank: records received
  std::vector<int> per_expert_counts;    // per local expert: entries in its segment
  // Record-ordered receive buffer (sources ascending): top-k indices and weights per record.
  std::vector<std::int32_t> recv_idx;    // records x topk
  std::vector<float> recv_weights;       // records x topk
  // Expert-grouped inputs, local experts in order, each entry the payload bytes of a record
  // (bf16 hidden vector, or e4m3 vector then fp32 scales).
  std::vector<std::uint8_t> expert_payload;
  std::uint32_t payload_bytes = 0;      // an entry's room in expert_payload (>= the payload)
  std::vector<std::uint16_t> combined;   // tokens x hidden, bf16 bits
};

// Fills result.recv_idx / recv_weights from `records` received records in format f.
void read_routes(const std::uint8_t* records, int count, const RecordFormat& f, EpResult& result);

class EpExchange {
 public:
  virtual ~EpExchange() = default;
  // Sets up one case: buffers, this rank's input (the data pattern) and routing. Untimed.
  virtual void prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) = 0;
  // One dispatch: layout, count exchange, pack, alltoallv, unpack. Returns microseconds.
  virtual double dispatch(const Phase& phase) = 0;
  // The experts: each entry times its expert's factor (src/pattern/ep_pattern.hpp). Untimed.
  virtual void run_experts(const Phase& phase) = 0;
  // One combine: weighted partial sums at the experts' ranks, reverse alltoallv, reduction in
  // token order. Returns microseconds.
  virtual double combine(const Phase& phase) = 0;
  // Overwrites what dispatch and combine produce, so that a check run cannot pass on the
  // output of an earlier iteration.
  virtual void poison() = 0;
  virtual EpResult result() = 0;
  // What a reader of the table should know about how this exchange works and is timed.
  virtual std::string note() const { return ""; }
  // What it measured of the case just run beyond the row (e.g. time per stage), or "".
  virtual std::string case_note() const { return ""; }
  // SMs that ran the dispatch's (combine's) own kernel in the case just run; 0 where it has no
  // kernel of its own to count (NCCL's collectives, the host).
  virtual int kernel_sms(bool dispatch) const { (void)dispatch; return 0; }
  // While on, the sweep runs the pairs back to back (ep_sweep.cpp): the exchange then keeps
  // nothing of its own between the calls (no stage clock reset before a kernel, none read back
  // after it), so that the period measured is the exchange's alone; the times it returns are
  // then not read. Off again before the check.
  virtual void back_to_back(bool on) { (void)on; }
  // Which NCCL path it moves the records on (the row's "nccl_path"): e.g. "grouped
  // ncclSend/ncclRecv"; "n/a (mpi backend)" where there is no NCCL.
  virtual std::string nccl_path() const = 0;
};

}  // namespace commsweep::ep
