#include "fabric/transport_report.hpp"

#include <set>
#include <sstream>
#include <utility>

namespace commsweep::fabric {

nlohmann::json to_json(const RankTransport& r) {
  nlohmann::json peers = nlohmann::json::object();
  for (const auto& [peer, kind] : r.peer_transport) peers[std::to_string(peer)] = kind;
  return {{"host", r.host},         {"pid", r.pid},
          {"cuda_dev", r.cuda_dev}, {"rank", r.rank},
          {"nranks", r.nranks},     {"network", r.network},
          {"hcas", r.hcas},         {"gdr", r.gdr ? nlohmann::json(*r.gdr) : nlohmann::json(nullptr)},
          {"dmabuf", r.dmabuf},     {"channels", r.channels},
          {"graph_type", r.graph_type}, {"transports", r.transports},
          {"peers", peers}};
}

RankTransport rank_transport_from_json(const nlohmann::json& j) {
  RankTransport r;
  r.host = j.at("host").get<std::string>();
  r.pid = j.at("pid").get<int>();
  r.cuda_dev = j.at("cuda_dev").get<int>();
  r.rank = j.at("rank").get<int>();
  r.nranks = j.at("nranks").get<int>();
  r.network = j.at("network").get<std::string>();
  r.hcas = j.at("hcas").get<std::vector<std::string>>();
  if (!j.at("gdr").is_null()) r.gdr = j.at("gdr").get<bool>();
  r.dmabuf = j.at("dmabuf").get<bool>();
  r.channels = j.at("channels").get<int>();
  r.graph_type = j.at("graph_type").get<std::string>();
  r.transports = j.at("transports").get<std::map<std::string, int>>();
  for (const auto& [peer, kind] : j.at("peers").items()) r.peer_transport[std::stoi(peer)] = kind.get<std::string>();
  return r;
}

std::string to_string(RequiredTransport required) {
  switch (required) {
    case RequiredTransport::Any: return "any";
    case RequiredTransport::IB: return "ib";
    case RequiredTransport::RoCE: return "roce";
    case RequiredTransport::Socket: return "socket";
    case RequiredTransport::NVLink: return "nvlink";
  }
  return "any";
}

std::string device_name(const std::string& hca) {
  if (hca.find('<') == std::string::npos) return hca;
  return hca.substr(0, hca.find(':'));
}

namespace {

std::set<std::string> peer_kinds(const RankTransport& r) {
  std::set<std::string> kinds;
  for (const auto& [peer, kind] : r.peer_transport) kinds.insert(kind);
  return kinds;
}

std::vector<std::string> device_names(const RankTransport& r) {
  std::vector<std::string> names;
  for (const auto& h : r.hcas) names.push_back(device_name(h));
  return names;
}

// What the one-line form shows: equal keys, one line.
auto agreement_key(const RankTransport& r) {
  return std::make_pair(describe_network(r, device_names(r), "none seen"), peer_kinds(r));
}

std::string alike_line(const RankTransport& r, size_t count) {
  const auto [network, kinds] = agreement_key(r);
  std::ostringstream out;
  out << (count == 1 ? std::string("1 rank") : std::to_string(count) + " ranks alike") << ": " << network;
  out << ", peers via ";
  if (kinds.empty()) out << "none connected";
  size_t i = 0;
  for (const auto& k : kinds) out << (i++ ? ", " : "") << k;
  return out.str();
}

}  // namespace

std::vector<std::string> render_transport_summary(const std::vector<RankTransport>& ranks) {
  std::vector<std::string> lines;
  if (ranks.empty()) return lines;
  const auto first = agreement_key(ranks.front());
  bool alike = true;
  for (const auto& r : ranks) alike = alike && agreement_key(r) == first;
  if (alike) {
    lines.push_back(alike_line(ranks.front(), ranks.size()));
    return lines;
  }
  std::istringstream per_rank(render_transport(ranks));
  for (std::string line; std::getline(per_rank, line);) lines.push_back(line);
  return lines;
}

report::TransportRank to_record(const RankTransport& r) {
  report::TransportRank t;
  t.rank = r.rank;
  t.host = r.host;
  t.device = r.cuda_dev;
  t.network = r.network;
  t.hcas = r.hcas;
  t.link = link_of(r);
  t.gdr = r.gdr;
  t.dmabuf = r.dmabuf;
  t.channels = r.channels;
  t.graph = r.graph_type;
  t.peers = r.peer_transport;
  return t;
}

std::vector<std::string> join_gdr_readiness(const std::vector<RankTransport>& ranks,
                                            const std::map<std::string, GdrReadiness>& readiness) {
  std::vector<std::string> out;
  for (const auto& r : ranks) {
    const auto host = readiness.find(r.host);
    // GPUDirect RDMA is a question of an RDMA network: sockets never have it, and a rank
    // without a network connection (one node: P2P, SHM) did not need it.
    if (host == readiness.end() || !r.gdr || r.network.empty() || r.network == "Socket") continue;
    const GdrReadiness& ready = host->second;
    const std::string who = "rank " + std::to_string(r.rank) + " (host " + r.host + ", GPU " + std::to_string(r.cuda_dev) + ")";
    if (!*r.gdr && ready.possible())
      out.push_back(who + ": NCCL ran without GPUDirect RDMA although preflight finds it possible (" + ready.reason +
                    "): NCCL chose against it (the GPU-NIC distance beyond NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_LEVEL or "
                    "NCCL_DMABUF_ENABLE=0 set, or an NCCL too old for dma-buf); its INFO lines say why");
    else if (*r.gdr && ready.path == GdrPath::None)
      out.push_back(who + ": NCCL ran with GPUDirect RDMA although preflight finds no way (" + ready.reason +
                    "): preflight's view of the node is incomplete (a module or /proc/driver/nvidia hidden from the "
                    "container?)");
  }
  return out;
}

}  // namespace commsweep::fabric
