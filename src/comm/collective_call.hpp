// One collective's backend calls: what the mpi backend and the nccl backend issue for it, in
// one file per collective (comm/calls/<name>.cpp, a `const CollectiveCall& <name>_call()`).
// The backends run any call the same way (timing, -z, -G, buffer slices, the deadline); the
// table of calls is generated at configure time from the files present (calls_table.cpp.in),
// so that a new collective's calls need no other edit.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "comm/backend.hpp"

namespace commsweep {

// What an MPI call sees of the mpi backend for one run: the communicator, this rank, the
// element type, the reduction (resolved on first use: MPI needs user functions for its 16- and
// 8-bit floats, made only for the calls that reduce) and a scratch buffer that lasts the run.
struct MpiCallContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  MPI_Datatype datatype = MPI_BYTE;
  std::size_t element_bytes = 1;
  std::function<MPI_Op()> op;
  std::vector<unsigned char> scratch;
};

// The nccl backend's context (comm/nccl/nccl_call.hpp): its communicator, stream and checks.
struct NcclCallContext;

struct CollectiveCall {
  std::string_view name;  // the collective's name, as its descriptor's (collectives/<name>.cpp)
  // MPI, before the clock starts (may be null): e.g. sizing ctx.scratch.
  void (*mpi_prepare)(MpiCallContext& ctx, const CollectiveArgs& args);
  // MPI: issues one iteration's non-blocking call(s), appending their requests.
  void (*mpi_issue)(MpiCallContext& ctx, const CollectiveArgs& args,
                    std::vector<MPI_Request>& requests);
  // MPI, once the requests completed (may be null): moves the result where NCCL leaves it.
  // Returns whether args.recv holds this rank's reduction (then `avg` scales it); null: it does.
  bool (*mpi_complete)(MpiCallContext& ctx, const CollectiveArgs& args);
  // NCCL: enqueues one iteration on the rank's stream (null in a build without the nccl backend).
  void (*nccl_issue)(const NcclCallContext& ctx, const CollectiveArgs& args);
};

// A calls file's NCCL call for its CollectiveCall: the function in a build with the nccl
// backend, null without one (where the file defines no nccl_issue under its #if).
#if COMMSWEEP_HAVE_NCCL_BACKEND
#define COMMSWEEP_NCCL_ISSUE(function) (function)
#else
#define COMMSWEEP_NCCL_ISSUE(function) nullptr
#endif

// Every collective's calls, by name (generated from comm/calls/*.cpp).
const std::vector<const CollectiveCall*>& collective_calls();

// Shared by the calls: the MPI element count (MPI counts are int).
inline int mpi_count(const CollectiveArgs& args) { return static_cast<int>(args.count); }

}  // namespace commsweep
