// The nccl backend's hang, reproduced with MPI alone (ctest mpi.np3.fault.hang_release).
//
// On a GPU, the ranks that wait for a hung rank hold device buffers under a queued NCCL
// kernel that the hung rank never joins; freeing them (cudaFree) waits for that kernel. So if
// rank 0's verdict on who did not arrive travelled as an exception, the unwinding blocked in
// cudaFree before the verdict was printed, and the hung rank's own watchdog ended the job
// with nobody named. Here a pending MPI_Iallreduce that the hung rank never joins stands for
// the kernel, and its release waits for it as cudaFree does; the job must still end with
// exit code 4 and rank 0's line "ranks that did not arrive: R".
//
// Usage: stall_probe -T SECONDS --hang RANK
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "runtime/watchdog.hpp"
#include "runtime/world.hpp"

namespace {

using commsweep::World;

// A collective in flight; released only once it completes, as a device buffer under a
// queued kernel is.
class PendingCollective {
 public:
  explicit PendingCollective(World& world) {
    MPI_Iallreduce(&mine_, &sum_, 1, MPI_INT, MPI_SUM, world.comm(), &request_);
  }
  ~PendingCollective() { MPI_Wait(&request_, MPI_STATUS_IGNORE); }
  PendingCollective(const PendingCollective&) = delete;
  PendingCollective& operator=(const PendingCollective&) = delete;

 private:
  int mine_ = 1;
  int sum_ = 0;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

struct ProbeOptions {
  double timeout_s = 5;
  int hung_rank = -1;
};

ProbeOptions parse(int argc, char** argv) {
  ProbeOptions o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "-T") o.timeout_s = std::stod(argv[i + 1]);
    if (flag == "--hang") o.hung_rank = std::stoi(argv[i + 1]);
  }
  return o;
}

// As the sweep's timed iterations: the phase is watched, the hung rank stops inside it, the
// others leave a collective pending and wait at a barrier; the pending collective outlives
// the watched scope, as the sweep's buffers outlive one measurement.
void run_probe(World& world, commsweep::Watchdog& watchdog, const ProbeOptions& o) {
  std::optional<PendingCollective> pending;
  const commsweep::Phase phase{"probe all_reduce 4 B (timed iterations)",
                               commsweep::Deadline::after(o.timeout_s)};
  const auto guard = watchdog.watch(phase);
  if (world.rank() == o.hung_rank) {
    std::fprintf(stderr, "commsweep: rank %d: fault injection: hanging in %s\n", world.rank(),
                 phase.label.c_str());
    std::fflush(stderr);
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  pending.emplace(world);
  world.barrier(phase);
}

}  // namespace

int main(int argc, char** argv) {
  commsweep::MpiSession mpi(&argc, &argv);
  World world;
  const ProbeOptions o = parse(argc, argv);
  commsweep::Watchdog watchdog(world);
  try {
    run_probe(world, watchdog, o);
  } catch (const commsweep::Error& e) {
    // What commsweep's top level does with an error: print it after the unwinding, end the job.
    std::fprintf(stderr, "commsweep: rank %d (host %s): %s\n", world.rank(), world.host().c_str(),
                 e.what());
    std::fflush(stderr);
    world.abort(e.exit_code());
  }
  return 0;
}
