// NCCL's own INFO lines (NCCL_DEBUG=INFO, NCCL_DEBUG_FILE=<dir>/nccl.%h.%p), read back to say
// per rank which network NCCL used, over which HCAs, with or without GPUDirect RDMA, and the
// transport to each peer; and the --require-transport / --require-gdr verdicts on them.
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace commsweep::fabric {

struct RankTransport {
  std::string host;
  int pid = 0;
  int cuda_dev = -1;
  int rank = -1;              // -1 where no init line named it
  int nranks = 0;
  std::string network;        // "IB", "Socket", or the plugin's name ("IBext_v11")
  std::vector<std::string> hcas;  // "mlx5_6:1/RoCE", "eth0:10.0.0.1<0>"
  std::optional<bool> gdr;    // GPUDirect RDMA as NCCL said it per HCA / per connection
  bool dmabuf = false;        // "DMA-BUF is available on GPU device"
  int channels = 0;
  std::string graph_type;     // "NVL/PIX" from the search's "type" field
  std::map<std::string, int> transports;  // "P2P/CUMEM" etc. -> connections
  std::map<int, std::string> peer_transport;  // peer rank -> "P2P", "SHM", "NET/IB"...

  bool roce() const;  // every HCA ends in /RoCE
  bool ib() const;    // every HCA ends in /IB
};

// Parses one log file's lines; source names the file in errors (none are thrown: unknown lines
// are skipped, as NCCL's INFO output changes between versions).
std::vector<RankTransport> parse_nccl_log(std::istream& in);
// Merges the ranks of several files, ordered by rank.
std::vector<RankTransport> merge_ranks(std::vector<RankTransport> ranks);

enum class RequiredTransport { Any, IB, RoCE, Socket, NVLink };
RequiredTransport parse_required_transport(const std::string& text);  // throws std::invalid_argument

// The reasons each rank breaks the requirements; empty when none does.
std::vector<std::string> judge_transport(const std::vector<RankTransport>& ranks, RequiredTransport required,
                                         bool require_gdr);
// "IB", "RoCE" or "" (sockets, a mix, none listed).
std::string link_of(const RankTransport& rank);
// What a rank's line says before its peers: "network IB [mlx5_0:1/IB mlx5_3:1/IB] IB, GDR on
// (DMA-BUF), 16 channels, graph NVL/PXB". `devices` stands in the brackets (the HCAs, or their
// names without socket addresses); `no_network` where no "Using network" line was seen.
std::string describe_network(const RankTransport& rank, const std::vector<std::string>& devices,
                             const std::string& no_network);
// One line per rank: "rank 0 (host vm, GPU 0): network Socket [eth0:...], GDR off, 24 channels, peers 1:P2P ..."
std::string render_transport(const std::vector<RankTransport>& ranks);

}  // namespace commsweep::fabric
