// --ep-impl alltoallv, the reference: grouped send/recv driven by the host, on either backend.
#include "ep/host_exchange.hpp"
#include "ep/implementation.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "ep/gpu/nccl_exchange.hpp"
#endif

namespace commsweep::ep {
namespace {

constexpr std::string_view kHelp =
    "the reference: kernels pack the records, the counts go first (ncclSend/Recv),\n"
    "the host waits for them, then grouped ncclSend/Recv move the records and,\n"
    "reversed, the partial sums; time is the host's wall time of the whole step.\n"
    "On the mpi backend the same exchange is MPI_Alltoallv on host buffers.";

std::unique_ptr<EpExchange> make(World& world, Backend& backend, const EpConfig&) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  if (NcclBackend* nccl = as_nccl_backend(backend)) return std::make_unique<NcclExchange>(world, *nccl);
#else
  (void)backend;
#endif
  return std::make_unique<HostExchange>(world);
}

}  // namespace

const EpImplementation& alltoallv_ep_impl() {
  static const EpImplementation impl{"alltoallv", 10, kHelp, {"alltoallv_ep"}, make, {}};
  return impl;
}

}  // namespace commsweep::ep
