#include "fabric/nccl_log.hpp"

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace commsweep::fabric {

namespace {

// "host:pid:tid [dev] NCCL INFO message"
const std::regex& prefix_re() {
  static const std::regex re(R"(^([^:\s]+):(\d+):\d+ \[(\d+)\] NCCL INFO (.*)$)");
  return re;
}

using Key = std::tuple<std::string, int, int>;  // host, pid, cuda device

struct Parser {
  std::map<Key, RankTransport> ranks;
  // Per process: what NCCL prints once for all its devices.
  std::map<std::pair<std::string, int>, std::vector<std::string>> process_hcas;
  std::map<std::pair<std::string, int>, std::string> process_network;

  RankTransport& at(const std::string& host, int pid, int dev) {
    auto& r = ranks[Key{host, pid, dev}];
    r.host = host;
    r.pid = pid;
    r.cuda_dev = dev;
    return r;
  }

  void line(const std::string& text);
};

int to_int(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (const std::exception&) {
    return -1;
  }
}

std::vector<std::string> using_list(const std::string& rest) {
  // "[0]mlx5_6:1/RoCE [1]mlx5_7:1/RoCE ; OOB eth0:10.0.0.1<0>"
  std::vector<std::string> out;
  static const std::regex item(R"(\[\d+\]([^\s\[;]+))");
  const std::string head = rest.substr(0, rest.find(';'));
  for (std::sregex_iterator it(head.begin(), head.end(), item), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

void Parser::line(const std::string& text) {
  // NCCL's lines are short; std::regex recurses per character, so a huge line could exhaust
  // the stack (the Trees lines of 8 x 32 channels are about 1 KiB).
  constexpr size_t kLongestLine = 16384;
  if (text.size() > kLongestLine) return;
  std::smatch m;
  if (!std::regex_match(text, m, prefix_re())) return;
  const std::string host = m[1];
  const int pid = to_int(m[2]);
  const int dev = to_int(m[3]);
  const std::string msg = m[4];
  const auto process = std::make_pair(host, pid);
  std::smatch f;
  static const std::regex init(R"(comm 0x[0-9a-f]+ rank (\d+) nranks (\d+) cudaDev (\d+))", std::regex::icase);
  static const std::regex network(R"(^Using network (\S+))");
  static const std::regex net_using(R"(^NET/(IB|Socket|\S+) ?: Using (.*)$)");
  static const std::regex channel(R"(^Channel \d+/(\d+) : \d)");
  // "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", "... [send] via NET/IB/0/GDRDMA"; SHM's line
  // has no connection index: "Channel 00 : 0[0] -> 1[1] via SHM/direct".
  static const std::regex via(R"(^Channel \d+(?:/\d+)? : (\d+)\[\d+\] -> (\d+)\[\d+\] (?:\[\w+\] )?via (\S+))");
  static const std::regex gdr_hca(R"(GPU Direct RDMA (Enabled|Disabled) for HCA)", std::regex::icase);
  static const std::regex coll(R"(^(\d+) coll channels)");
  static const std::regex pattern(R"(^Pattern \d+, crossNic \d+, nChannels \d+, .* type (\S+),)");
  if (std::regex_search(msg, f, init)) {
    auto& r = at(host, pid, to_int(f[3]));
    r.rank = to_int(f[1]);
    r.nranks = to_int(f[2]);
  } else if (std::regex_search(msg, f, network)) {
    at(host, pid, dev).network = f[1];
    process_network[process] = f[1];
  } else if (std::regex_search(msg, f, net_using)) {
    auto list = using_list(f[2]);
    if (!list.empty()) process_hcas[process] = list;
  } else if (std::regex_search(msg, f, via)) {
    auto& r = at(host, pid, dev);
    const std::string path = f[3];
    r.transports[path.substr(0, path.find('/', path.find('/') + 1))]++;
    const int peer = to_int(f[1]) == r.rank || r.rank < 0 ? to_int(f[2]) : to_int(f[1]);
    std::string kind = path.substr(0, path.find('/'));
    if (kind == "NET") kind = path.substr(0, path.find('/', 4));
    r.peer_transport[peer] = kind;
    if (kind.rfind("NET", 0) == 0) r.gdr = path.find("GDRDMA") != std::string::npos && r.gdr.value_or(true);
  } else if (std::regex_search(msg, f, coll)) {
    // Every rank prints this; only the first rank prints the ring's "Channel NN/MM" lines.
    at(host, pid, dev).channels = to_int(f[1]);
  } else if (std::regex_search(msg, f, channel)) {
    auto& r = at(host, pid, dev);
    r.channels = std::max(r.channels, to_int(f[1]));
  } else if (std::regex_search(msg, f, gdr_hca)) {
    auto& r = at(host, pid, dev);
    if (!r.gdr || f[1] == "Disabled") r.gdr = f[1] == "Enabled";
  } else if (msg.find("DMA-BUF is available on GPU device") != std::string::npos) {
    at(host, pid, dev).dmabuf = true;
  } else if (std::regex_search(msg, f, pattern)) {
    auto& r = at(host, pid, dev);
    if (r.graph_type.empty()) r.graph_type = f[1];
  }
}

bool all_end_with(const std::vector<std::string>& hcas, const std::string& suffix) {
  return !hcas.empty() && std::all_of(hcas.begin(), hcas.end(), [&](const std::string& h) {
    return h.size() >= suffix.size() && h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

std::string kind_of_network(const std::string& network) {
  if (network.rfind("IB", 0) == 0) return "IB";  // IB, IBext_v11 (the IB plugin's names)
  return network;
}

}  // namespace

bool RankTransport::roce() const { return all_end_with(hcas, "/RoCE"); }
bool RankTransport::ib() const { return all_end_with(hcas, "/IB"); }

std::vector<RankTransport> parse_nccl_log(std::istream& in) {
  Parser p;
  std::string text;
  while (std::getline(in, text)) p.line(text);
  std::vector<RankTransport> out;
  for (auto& [key, r] : p.ranks) {
    if (r.rank < 0 && r.network.empty() && r.transports.empty()) continue;  // a helper thread's device tag
    const auto process = std::make_pair(r.host, r.pid);
    if (r.network.empty() && p.process_network.count(process)) r.network = p.process_network[process];
    if (p.process_hcas.count(process)) r.hcas = p.process_hcas[process];
    out.push_back(r);
  }
  return merge_ranks(std::move(out));
}

std::vector<RankTransport> merge_ranks(std::vector<RankTransport> ranks) {
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankTransport& a, const RankTransport& b) {
    return std::tie(a.rank, a.host, a.pid, a.cuda_dev) < std::tie(b.rank, b.host, b.pid, b.cuda_dev);
  });
  return ranks;
}

RequiredTransport parse_required_transport(const std::string& text) {
  if (text == "ib") return RequiredTransport::IB;
  if (text == "roce") return RequiredTransport::RoCE;
  if (text == "socket") return RequiredTransport::Socket;
  if (text == "nvlink") return RequiredTransport::NVLink;
  if (text == "any") return RequiredTransport::Any;
  throw std::invalid_argument("'" + text + "' is not ib, roce, socket, nvlink or any");
}

namespace {
std::string who(const RankTransport& r) {
  return "rank " + (r.rank < 0 ? std::string("?") : std::to_string(r.rank)) + " (host " + r.host + ", GPU " +
         std::to_string(r.cuda_dev) + ")";
}

std::string network_problem(const RankTransport& r, RequiredTransport required) {
  const std::string net = kind_of_network(r.network);
  const std::string used = "used network " + r.network;
  if (r.network.empty() && required != RequiredTransport::Any && required != RequiredTransport::NVLink)
    return "has no 'Using network' line in NCCL's log, so its network is unknown";
  switch (required) {
    case RequiredTransport::IB:
      if (net != "IB") return used + ", not IB: NCCL fell back to sockets";
      if (!r.ib()) return "used HCAs that are not InfiniBand (" + (r.hcas.empty() ? "none listed" : r.hcas[0]) + ")";
      return "";
    case RequiredTransport::RoCE:
      if (net != "IB") return used + ", not IB/RoCE: NCCL fell back to sockets";
      if (!r.roce()) return "used HCAs that are not RoCE (" + (r.hcas.empty() ? "none listed" : r.hcas[0]) + ")";
      return "";
    case RequiredTransport::Socket:
      return net == "Socket" ? "" : used + ", not Socket";
    case RequiredTransport::NVLink:
      for (const auto& [peer, kind] : r.peer_transport)
        if (kind != "P2P") return "reaches rank " + std::to_string(peer) + " via " + kind + ", not P2P (NVLink)";
      if (r.peer_transport.empty()) return "no peer connection in the log";
      if (!r.graph_type.empty() && r.graph_type.rfind("NVL", 0) != 0)
        return "NCCL's graph is of type " + r.graph_type + ", not NVL";
      return "";
    case RequiredTransport::Any: return "";
  }
  return "";
}
}  // namespace

std::vector<std::string> judge_transport(const std::vector<RankTransport>& ranks, RequiredTransport required,
                                         bool require_gdr) {
  std::vector<std::string> out;
  if (ranks.empty() && (required != RequiredTransport::Any || require_gdr))
    out.push_back("no NCCL INFO lines naming a rank: was NCCL_DEBUG=INFO set for the run?");
  for (const auto& r : ranks) {
    const std::string problem = network_problem(r, required);
    if (!problem.empty()) out.push_back(who(r) + " " + problem);
    if (require_gdr && !r.gdr.value_or(false))
      out.push_back(who(r) + (r.gdr ? " has GPUDirect RDMA off" : " shows no GPUDirect RDMA (no NET/ connection with GDRDMA)"));
  }
  return out;
}

std::string link_of(const RankTransport& r) { return r.roce() ? "RoCE" : r.ib() ? "IB" : ""; }

std::string describe_network(const RankTransport& r, const std::vector<std::string>& devices,
                             const std::string& no_network) {
  std::ostringstream out;
  out << "network " << (r.network.empty() ? no_network : r.network);
  if (!devices.empty()) {
    out << " [";
    for (size_t i = 0; i < devices.size(); ++i) out << (i ? " " : "") << devices[i];
    out << "]" << (link_of(r).empty() ? "" : " " + link_of(r));
  }
  out << ", GDR " << (r.gdr ? (*r.gdr ? "on" : "off") : "n/a") << (r.dmabuf ? " (DMA-BUF)" : "");
  out << ", " << r.channels << " channels";
  if (!r.graph_type.empty()) out << ", graph " << r.graph_type;
  return out.str();
}

std::string render_transport(const std::vector<RankTransport>& ranks) {
  std::ostringstream out;
  for (const auto& r : ranks) {
    out << who(r) << ": " << describe_network(r, r.hcas, "-");
    if (!r.peer_transport.empty()) {
      out << ", peers";
      for (const auto& [peer, kind] : r.peer_transport) out << " " << peer << ":" << kind;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace commsweep::fabric
