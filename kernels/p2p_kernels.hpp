// The SM side of `commsweep nvlink` (kernels/p2p.cu): a copy through peer pointers in 16-byte
// accesses, and a flag's ping-pong through peer memory for the latency.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace commsweep::kernels {

// Copies BYTES (a multiple of 16) from SRC to DST, either of them a peer GPU's memory mapped
// here (CUDA IPC), on BLOCKS blocks of kCopyThreads threads (p2p_copy_blocks: enough to keep
// every SM's loads in flight).
inline constexpr int kCopyThreads = 512;
cudaError_t launch_sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream);
// The blocks that saturate the links from DEVICE: 4 per SM (each thread keeps 4 16-byte loads
// in flight), as bandwidth tools size a copy kernel to the SM count.
int p2p_copy_blocks(int device);

// The latency test, one thread on each of two GPUs: the initiator writes i into PEER_FLAG (the
// other GPU's MINE) and waits for i in MINE; the responder waits for i in MINE and writes it back.
// ITERS round trips; the initiator writes into *ELAPSED_NS (device memory) the time of the last
// ITERS - 1 (the first waits for the other GPU's kernel to start), or ~0 when a flag did not come
// within TIMEOUT_NS.
cudaError_t launch_ping_pong(volatile std::uint32_t* mine, volatile std::uint32_t* peer_flag, int iters, bool initiator,
                             unsigned long long timeout_ns, unsigned long long* elapsed_ns, cudaStream_t stream);

}  // namespace commsweep::kernels
