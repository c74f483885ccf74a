// --ep-impl lsa: the exchange from inside kernels on NCCL's device API (kernels/ep_lsa.cu; the
// host side is ep/gpu/lsa_exchange.cpp), nccl backend only.
#include "core/error.hpp"
#include "ep/implementation.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "ep/gpu/lsa_exchange.hpp"
#endif

namespace commsweep::ep {
namespace {

constexpr std::string_view kHelp =
    "nccl backend, NCCL 2.28+ device API; which library it runs on is the NCCL\n"
    "version policy's (stated before the table; docs/nccl-versions.md). On one\n"
    "node one cooperative kernel per step stores each token once per destination\n"
    "rank straight into the receiver's symmetric buffer (ncclMemAlloc +\n"
    "ncclCommWindowRegister, peer pointers; counts by the LL all-to-all, LSA\n"
    "barriers between stages); the combine stores each rank's weighted partial\n"
    "sums straight back. Replayed as a CUDA graph; time is the kernel's own span\n"
    "(first block's start to last block's end, on the GPU's clock), as DeepEP\n"
    "times its kernels. On several nodes the same within each node, and\n"
    "ncclSend/Recv to other nodes; time is then the host's wall time.";

std::unique_ptr<EpExchange> make(World& world, Backend& backend, const EpConfig& config) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  if (NcclBackend* nccl = as_nccl_backend(backend)) {
    const Phase setup{"ep lsa set-up (device communicator)", Deadline::after(config.timeout_s)};
    return std::make_unique<LsaExchange>(world, *nccl, setup, static_cast<int>(impl_setting(config, "lsa_blocks").whole),
                                         LsaVariant{"lsa", "lsa_ep", kernels::lsa_kernels()});
  }
#else
  (void)world;
  (void)config;
#endif
  throw_usage("--ep-impl lsa: needs the nccl backend (GPUs, NCCL 2.28+); this run uses the " +
              std::string(backend.name()) + " backend");
}

}  // namespace

const EpImplementation& lsa_ep_impl() {
  static const EpImplementation impl{
      "lsa", 20, kHelp, {"lsa_ep", "ll_all_to_all_counts"}, make,
      {settings::Spec{"lsa-blocks", 0, "lsa_blocks", settings::whole(0, 1 << 16), "0",
                      "--ep-impl lsa: thread blocks (512 threads) of both kernels, at most what the GPU keeps "
                      "resident; 0: the combine on 2 blocks per SM, the dispatch on 1 per SM up to 1024 tokens and 2 "
                      "above",
                      ""}}};
  return impl;
}

}  // namespace commsweep::ep
