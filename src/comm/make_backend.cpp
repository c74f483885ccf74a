#include "comm/make_backend.hpp"

#include "comm/mpi/mpi_backend.hpp"
#include "mpitransport/mpi_components.hpp"
#include "core/error.hpp"
#include "runtime/gpu.hpp"
#include "runtime/gpu_sharing.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "comm/nccl/nccl_backend.hpp"
#endif

namespace commsweep {
namespace {

// Before NCCL's set-up: more ranks on a host than GPUs would have two ranks take one GPU, which
// NCCL refuses on every rank ("Duplicate GPU detected", ncclInvalidUsage). Rank 0 says it once,
// with the counts (runtime/gpu_sharing.hpp); a usage Error on every rank.
[[maybe_unused]] void refuse_ranks_sharing_gpus(World& world, double timeout_s) {
  const Phase phase{"GPU discovery", Deadline::after(timeout_s)};
  const auto all = world.gather(world.host() + '\n' + planned_gpu_bus_id(world.local_rank()), phase);
  std::string crowded;
  if (world.rank() == 0) {
    std::vector<RankGpu> ranks;
    for (const std::string& rank : all) {
      const auto newline = rank.find('\n');
      ranks.push_back({rank.substr(0, newline), rank.substr(newline + 1)});
    }
    crowded = ranks_sharing_gpus(ranks);
  }
  if (world.sum(crowded.empty() ? 0 : 1, phase) == 0) return;
  throw_usage(world.rank() == 0 ? crowded : "more ranks on a host than GPUs (rank 0 names the host)");
}

}  // namespace

bool nccl_backend_built() { return COMMSWEEP_HAVE_NCCL_BACKEND != 0; }

MemoryRoom memory_room_before_backend(World& world, BackendChoice choice, double timeout_s) {
  if (choice == BackendChoice::Nccl) return {};
  if (choice == BackendChoice::Auto && nccl_backend_built()) {
    const bool gpu = visible_gpu_count(nullptr) > 0;
    if (world.sum(gpu ? 0 : 1, Phase{"GPU discovery", Deadline::after(timeout_s)}) == 0) return {};
  }
  return host_memory_room(world.local_size());
}

BackendSetup make_backend(World& world, BackendChoice choice, double timeout_s, const BackendOptions& options) {
  (void)options;  // the nccl backend's, where it is built
  BackendSetup setup;
  setup.nccl_version = "none";
  setup.nccl_headers_version = "none";
#if COMMSWEEP_HAVE_NCCL_BACKEND
  // The headers are known at build time whichever backend runs; the library only once loaded.
  setup.nccl_headers_version = nccl_version_text(nccl_versions().headers);
#endif
  std::string why_none;
  const int gpus = visible_gpu_count(&why_none);
  const auto ranks_without_gpu =
      world.sum(gpus > 0 ? 0 : 1, Phase{"GPU discovery", Deadline::after(timeout_s)});

  bool use_nccl = false;
  if (choice == BackendChoice::Nccl) {
    if (!nccl_backend_built()) {
      throw_usage("--backend nccl: this commsweep was built without CUDA/NCCL; use --backend mpi");
    }
    if (ranks_without_gpu > 0) {
      throw Error(ErrorKind::Usage,
                  "--backend nccl: " + std::to_string(ranks_without_gpu) +
                      " rank(s) see no GPU (rank " + std::to_string(world.rank()) + ": " +
                      (gpus > 0 ? "has one" : why_none) + "); use --backend mpi");
    }
    use_nccl = true;
    setup.note = "backend nccl (asked for)";
  } else if (choice == BackendChoice::Auto) {
    use_nccl = nccl_backend_built() && ranks_without_gpu == 0;
    if (use_nccl) {
      setup.note = "backend nccl: every rank has a GPU";
    } else if (!nccl_backend_built()) {
      setup.note = "backend mpi: built without CUDA/NCCL";
    } else {
      setup.note = "backend mpi: " + std::to_string(ranks_without_gpu) + " of " +
                   std::to_string(world.size()) + " ranks see no GPU (rank " +
                   std::to_string(world.rank()) + ": " + why_none + ")";
    }
  } else {
    setup.note = "backend mpi (asked for)";
  }

  if (!use_nccl) {
    // Which transport MPI chose (shared memory, TCP, UCX), as far as this rank can tell.
    setup.transport_note = mpitransport::this_process_transport();
    setup.gpu.name = "host memory (mpi backend)";
    setup.gpu.pci_bus_id = "-";
    setup.backend = std::make_unique<MpiBackend>(world);
    return setup;
  }
#if COMMSWEEP_HAVE_NCCL_BACKEND
  refuse_ranks_sharing_gpus(world, timeout_s);
  const GpuChoice gpu = choose_gpu(world.local_rank());
  setup.gpu = gpu;
  const NcclVersions v = nccl_versions();
  setup.nccl_version = nccl_version_text(v.library);
  setup.nccl_headers_version = nccl_version_text(v.headers);
  setup.nccl = nccl_policy_versions();
  setup.backend = std::make_unique<NcclBackend>(
      world, gpu, Phase{"NCCL communicator set-up (ncclCommInitRankConfig)", Deadline::after(timeout_s)},
      options.time_kernels, options.nccl_choice);
#endif
  return setup;
}

}  // namespace commsweep
