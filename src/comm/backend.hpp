// What a sweep needs from a transport: memory, the data pattern on that memory, and timed
// collectives. `nccl` works on device buffers, `mpi` on host buffers; one sweep engine and
// one verification scheme serve both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"
#include "report/result.hpp"
#include "pattern/spec.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// One collective's backend calls (comm/collective_call.hpp, comm/calls/<name>.cpp).
struct CollectiveCall;

// One collective call, with NCCL's argument conventions: count is per rank for all_gather
// (send count), reduce_scatter (receive count) and alltoall (per peer).
struct CollectiveArgs {
  const CollectiveCall* call = nullptr;  // what the backends issue (collective_call(name))
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  DataType type = DataType::Float32;
  RedOp op = RedOp::Sum;
  int root = 0;
  int send_peer = 0;  // sendrecv
  int recv_peer = 0;  // sendrecv
};

// Where each iteration's buffers lie (--buffers cold, sweep/slices.hpp): iteration i of a run()
// moves the send and the receive pointer alike by offset(i) bytes, so that the relation between
// them (in place, nccl-tests' in-place offsets) is kept. One slice: the same bytes every time.
struct BufferSlices {
  std::size_t stride = 0;  // bytes from one slice to the next
  std::size_t count = 1;   // slices that fit in the buffers (at least 1)
  std::size_t first = 0;   // the slice of the call's first iteration
  std::size_t at(std::size_t slice) const { return slice % count * stride; }
  std::size_t offset(std::size_t iteration) const { return at(first + iteration); }
};
// The arguments with both pointers moved by `offset` bytes.
CollectiveArgs at_offset(const CollectiveArgs& args, std::size_t offset);

struct TimingOptions {
  int iters = 1;
  bool blocking = false;    // wait for each collective before issuing the next (-z)
  int graph_launches = 0;   // > 0: capture the iterations in a CUDA graph, replay it (-G)
  // false: a host clock from the first issue to the last completion, as nccl-tests times
  // (launch and synchronisation latency included); true: CUDA events on the stream (nccl).
  bool device_timer = false;
  // Each iteration's slice of the buffers; a CUDA graph captures each launch at its own.
  BufferSlices slices{};
  // Given: each timed iteration's time in microseconds (cleared, then one per iteration; with
  // -G one per graph launch, divided by the iterations it holds). Timed beside the span that
  // run() returns, not instead of it: nccl reads NCCL's kernels' own timestamps (else records a
  // CUDA event between the iterations), mpi reads the host clock (docs/iterations.md;
  // docs/iterations-cost.md: what each costs).
  std::vector<double>* iteration_us = nullptr;
  // Record what NCCL chose for these collectives (last_choice): its profiler plugin's task events
  // are on for this run only. Off, nothing of the profiler's is on the issue path: the table's
  // pass runs so, and the warm-up before it records the choice (sweep.cpp).
  bool record_choice = false;
};

// The memory a rank's buffers come from, as the backend knows it before allocating them: BYTES
// (0: unknown, nothing is refused) and what they are ("its share of the host's available memory
// (23.1 GiB over 2 ranks)", "free on GPU 0 (...)"), read after the size: "11.5 GiB, WHAT".
struct MemoryRoom {
  std::uint64_t bytes = 0;
  std::string what;
};

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() = 0;
  virtual std::size_t bytes() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Empty when supported; otherwise why not (e.g. fp8 reductions before sm_90).
  virtual std::string unsupported(DataType type, RedOp op) const = 0;
  // Where TYPE reduced with OP is carried out otherwise than the fabric would (the mpi backend's
  // 16- and 8-bit floats, reduced on the host), what the rows' times then measure; "" elsewhere.
  virtual std::string caveat(DataType /*type*/, RedOp /*op*/) const { return {}; }

  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // What allocate() can still give this rank, so that a sweep too large is refused before any
  // table (sweep/buffer_room.hpp).
  virtual MemoryRoom memory_room() const { return {}; }
  virtual void fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) = 0;
  virtual void poison(void* buffer, std::size_t count, const pattern::Expect& expect) = 0;
  virtual Mismatch verify(const void* buffer, std::size_t count, const pattern::Expect& expect) = 0;
  // Fault injection for the tests: flips the bits of one element.
  virtual void corrupt(void* buffer, std::size_t index, std::size_t element_bytes) = 0;

  // Waits for work this rank has queued (fills, poisons) to finish.
  virtual void synchronize(const Phase& phase) = 0;
  // Runs timing.iters collectives (times the graph launches) and returns this rank's time
  // per collective in microseconds. Misses of phase.deadline run World's stall protocol.
  virtual double run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) = 0;
  // What NCCL chose for the collectives of the last run() that recorded it
  // (TimingOptions::record_choice) on this rank (algorithm, protocol, channels), or why that is
  // not known: the mpi backend has no NCCL.
  virtual report::NcclChoice last_choice() const {
    return {"n/a (" + std::string(name()) + " backend)", "n/a (" + std::string(name()) + " backend)", 0,
            std::string(name()) + " backend"};
  }
  // Said once before the tables where last_choice() cannot know NCCL's choice although this is
  // NCCL (another profiler plugin is the user's, or commsweep's is missing); "" otherwise.
  virtual std::string choice_note() const { return ""; }
  // What timed the iterations of the last run() that kept them (TimingOptions::iteration_us):
  // "host" (the host clock), "cuda-events" (an event between the iterations), "nccl-kernel"
  // (NCCL's kernels' own timestamps, through commsweep's profiler plugin).
  virtual std::string iteration_clock() const { return "host"; }
  // An error the transport found on its own (NCCL's asynchronous errors: a network failure
  // seen by its proxy thread), empty while there is none. Called from the watchdog thread
  // while the main thread may be blocked in a call, so it must be safe from another thread.
  virtual std::string asynchronous_error() { return {}; }
  // Ends this rank's transport in place, as a lost network or a dead NIC would, without ending the
  // job: on nccl the communicator is aborted under the peers (their NCCL calls fail where a
  // transport notices: sockets do, NVLink polling does not); on mpi, which has no communicator to
  // break in place, asynchronous_error() says WHY (a string that outlives the backend) from then
  // on. The testing-only fault async-error (faults/sweep_faults.hpp) is its one caller.
  virtual void abort_transport(const char* why) = 0;
};

// The calls of the collective `name` ("all_reduce"); throws std::logic_error where
// comm/calls/ has none (a unit test checks that every registered collective has its calls).
const CollectiveCall& collective_call(std::string_view name);

}  // namespace commsweep
