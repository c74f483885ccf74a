// Chooses and builds the backend: nccl where every rank has a GPU (or when asked), else mpi.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "comm/backend.hpp"
#include "nccl_policy/policy.hpp"
#include "runtime/gpu.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// --backend: the CLI parses it; the choice belongs here, beside what it chooses.
enum class BackendChoice { Auto, Nccl, Mpi };

struct BackendSetup {
  std::unique_ptr<Backend> backend;
  std::string note;               // why this backend (printed by rank 0; one line, messages quote it)
  std::string transport_note;     // mpi: which transport MPI chose, a preamble line of its own; or ""
  GpuChoice gpu;                  // this rank's device (device -1 for mpi: "host memory")
  std::string nccl_version;       // library, "none" for mpi
  std::string nccl_headers_version;
  // nccl backend: the NCCL version policy's inputs on this rank (the paths decide with them).
  std::optional<nccl_policy::Versions> nccl;
};

// What the measurements ask of the backend before it is made.
struct BackendOptions {
  // The nccl backend asks NCCL, at its communicator's init, for its kernels' own timestamps
  // (comm/nccl/nccl_backend.hpp). No command does since issue 40: once asked for, every task
  // pays for them, the table's pass too (docs/iterations.md).
  bool time_kernels = false;
  // The nccl backend loads commsweep's NCCL profiler plugin to record NCCL's choice per row
  // (--show-algo). Loaded, it costs NCCL time even while its events are off (all_gather below
  // 1 MiB: 2 to 3 us an iteration on 2 x H200), so it is loaded only where asked for.
  bool nccl_choice = false;
};

BackendSetup make_backend(World& world, BackendChoice choice, double timeout_s, const BackendOptions& options = {});
bool nccl_backend_built();

// The memory a rank's buffers may take, known before the backend is made, so that a sweep too
// large is refused before the preflight prints a word: where CHOICE will give the mpi backend (as
// make_backend decides: asked for, or auto where a rank sees no GPU or CUDA is not built), this
// rank's share of the host's available memory; where it will give nccl, unknown ({}): GPU memory
// is known once NCCL is set up (Backend::memory_room). Collective where auto must ask the ranks.
MemoryRoom memory_room_before_backend(World& world, BackendChoice choice, double timeout_s);

}  // namespace commsweep
