// The transport report of a run: each rank's RankTransport (nccl_log.hpp) sent to rank 0 as
// JSON, printed compactly before the tables (one line when every rank agrees, else one per
// rank), and turned into the results file's typed record (report/result.hpp).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/host_checks.hpp"
#include "fabric/nccl_log.hpp"
#include "report/result.hpp"

namespace commsweep::fabric {

nlohmann::json to_json(const RankTransport& rank);
RankTransport rank_transport_from_json(const nlohmann::json& doc);  // throws nlohmann::json::exception

std::string to_string(RequiredTransport required);  // "any", "ib", "roce", "socket", "nvlink"

// A socket's "eth0:10.0.0.1<0>" names its address, which differs per node: "eth0". An HCA's
// "mlx5_0:1/IB" stays as it is.
std::string device_name(const std::string& hca);

// The report's lines (without '#'): when every rank shows the same network, devices, GDR,
// channels, graph and kinds of peer connection,
//   "4 ranks alike: network Socket [eth0], GDR off, 24 channels, graph NVL/PIX, peers via P2P"
// else one line per rank as render_transport() writes it.
std::vector<std::string> render_transport_summary(const std::vector<RankTransport>& ranks);

report::TransportRank to_record(const RankTransport& rank);

// NCCL's GPUDirect RDMA choice joined with preflight's readiness of each rank's host
// (gpudirect_readiness, by host name): a line per rank where they disagree, GDR off (or no
// GDRDMA connection) where the host is ready, or GDR on where preflight found no way. Nothing for
// ranks without a network connection, over sockets, or on a host not in `readiness`.
std::vector<std::string> join_gdr_readiness(const std::vector<RankTransport>& ranks,
                                            const std::map<std::string, GdrReadiness>& readiness);

}  // namespace commsweep::fabric
