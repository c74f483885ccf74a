#include "ep/gpu/grouped_send_recv.hpp"

#define CS_GROUPED_NCCL(call) backend.check((call), #call, __FILE__, __LINE__, phase)

namespace commsweep::ep {

std::vector<std::size_t> exclusive_prefix(const std::vector<int>& counts) {
  std::vector<std::size_t> offsets(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

void grouped_send_recv(NcclBackend& backend, const void* send, const PeerPieces& sends, void* recv,
                       const PeerPieces& receives, std::size_t unit, const Phase& phase) {
  const ncclComm_t comm = backend.comm();
  const cudaStream_t stream = backend.stream();
  CS_GROUPED_NCCL(ncclGroupStart());
  for (std::size_t p = 0; p < sends.counts.size(); ++p) {
    const int peer = static_cast<int>(p);
    if (sends.counts[p] > 0) {
      CS_GROUPED_NCCL(ncclSend(static_cast<const char*>(send) + sends.starts[p] * unit, sends.counts[p] * unit,
                               ncclUint8, peer, comm, stream));
    }
    if (receives.counts[p] > 0) {
      CS_GROUPED_NCCL(ncclRecv(static_cast<char*>(recv) + receives.starts[p] * unit, receives.counts[p] * unit,
                               ncclUint8, peer, comm, stream));
    }
  }
  CS_GROUPED_NCCL(ncclGroupEnd());
}

}  // namespace commsweep::ep
