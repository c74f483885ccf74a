// The mpi backend: host buffers and MPI's non-blocking collectives, polled against the
// deadline. A real measurement of the MPI fabric the launcher uses (what OSU measures), and
// the path every sweep takes in CI.
#pragma once

#include <mpi.h>

#include <atomic>
#include <map>
#include <utility>

#include "comm/backend.hpp"

namespace commsweep {

// The host memory one of LOCAL_RANKS ranks of this host may take: its share of MemAvailable
// (/proc/meminfo), which Linux would overcommit and the OOM killer end without a word.
MemoryRoom host_memory_room(int local_ranks);

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(World& world);
  ~MpiBackend() override;

  std::string_view name() const override { return "mpi"; }
  std::string unsupported(DataType type, RedOp op) const override;
  std::string caveat(DataType type, RedOp op) const override;
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  MemoryRoom memory_room() const override;
  void fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) override;
  void poison(void* buffer, std::size_t count, const pattern::Expect& expect) override;
  Mismatch verify(const void* buffer, std::size_t count, const pattern::Expect& expect) override;
  void corrupt(void* buffer, std::size_t index, std::size_t element_bytes) override;
  void synchronize(const Phase&) override {}  // host buffers: nothing is queued
  // Always a host clock (MPI_Wtime); timing.device_timer does not apply.
  double run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) override;
  std::string asynchronous_error() override;
  void abort_transport(const char* why) override { aborted_why_ = why; }

 private:
  MPI_Datatype datatype_of(DataType type) const;
  MPI_Op op_of(DataType type, RedOp op);
  void finish_average(const CollectiveArgs& args);

  World& world_;
  std::map<std::pair<DataType, RedOp>, MPI_Op> user_ops_;  // reductions MPI lacks (half, bf16, fp8)
  std::atomic<const char*> aborted_why_{nullptr};  // abort_transport's; read by the watchdog thread
};

}  // namespace commsweep
