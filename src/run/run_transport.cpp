#include "run/run_transport.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "comm/backend.hpp"
#include "comm/make_backend.hpp"
#include "fabric/host_checks.hpp"
#include "fabric/transport_report.hpp"
#include "core/error.hpp"
#include "runtime/watchdog.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace {

using nlohmann::json;

// Enough lines for a job of a few nodes; the JSON keeps every problem.
constexpr size_t kMostProblemLines = 16;

// A small all_reduce (rings or trees) and alltoall (a connection to every peer): NCCL writes
// its "Channel .. via .." lines as it connects them. The data is not looked at.
void connect_peers(World& world, Backend& backend, Watchdog& watchdog, double timeout_s) {
  constexpr std::size_t kPerPeer = 1024;  // floats: small enough to cost nothing, any protocol will do
  const std::size_t n = static_cast<std::size_t>(world.size());
  const std::size_t bytes = kPerPeer * n * sizeof(float);
  const auto send = backend.allocate(bytes);
  const auto recv = backend.allocate(bytes);
  const Phase phase{"transport probe (a small all_reduce and alltoall after set-up)", Deadline::after(timeout_s)};
  const auto guard = watchdog.watch(phase);
  CollectiveArgs args;
  args.send = send->data();
  args.recv = recv->data();
  args.type = DataType::Float32;
  args.call = &collective_call("all_reduce");
  args.count = kPerPeer * n;
  backend.run(args, TimingOptions{}, phase);
  args.call = &collective_call("alltoall");
  args.count = kPerPeer;
  backend.run(args, TimingOptions{}, phase);
}

// This rank's message to rank 0.
std::string own_message(const fabric::NcclLogCapture& capture, const World& world) {
  if (!capture.active()) return json{{"status", "off"}, {"note", capture.note()}}.dump();
  const auto ranks = capture.read();
  const fabric::RankTransport* mine = nullptr;
  for (const auto& r : ranks)
    if (r.rank == world.rank() || (!mine && r.rank < 0)) mine = &r;
  if (!mine && !ranks.empty()) mine = &ranks.front();
  if (!mine) return json{{"status", "empty"}, {"note", capture.note()}}.dump();
  fabric::RankTransport r = *mine;
  r.host = world.host();  // commsweep's name of the node ("host/HOSTID" where emulated)
  if (r.rank < 0) r.rank = world.rank();
  // The node's GPUDirect RDMA readiness as preflight judges it, for rank 0 to join with NCCL's choice.
  fabric::HostFacts facts;
  fabric::gather_gpudirect_facts(fabric::SysfsRoot("/"), facts);
  const auto ready = fabric::gpudirect_readiness(facts);
  return json{{"status", "ok"},
              {"note", capture.note()},
              {"transport", fabric::to_json(r)},
              {"gdr_readiness", {{"path", fabric::to_string(ready.path)}, {"reason", ready.reason}}}}
      .dump();
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

std::string requirement_text(const FabricRunOptions& o) {
  std::string text;
  if (o.required != fabric::RequiredTransport::Any) text = "--require-transport " + fabric::to_string(o.required);
  if (o.require_gdr) text += (text.empty() ? "" : " ") + std::string("--require-gdr");
  return text;
}

// What the ranks sent, sorted out: their transports, and those that had none to send.
struct Gathered {
  std::vector<fabric::RankTransport> ranks;
  std::map<std::string, fabric::GdrReadiness> readiness;  // by host, where a rank sent it
  std::vector<int> silent;  // ranks whose lines could not be had
  std::string source;       // how the lines were had ("captured", or the user's file)
  std::string silent_note;  // why the silent ranks have none
};

Gathered sort_out(const std::vector<std::string>& messages) {
  Gathered g;
  for (std::size_t r = 0; r < messages.size(); ++r) {
    const json m = json::parse(messages[r]);
    const std::string status = m.at("status").get<std::string>();
    const std::string note = m.at("note").get<std::string>();
    if (status == "ok") {
      g.ranks.push_back(fabric::rank_transport_from_json(m.at("transport")));
      if (m.contains("gdr_readiness")) {
        const json& ready = m.at("gdr_readiness");
        g.readiness[g.ranks.back().host] = {fabric::gdr_path_from_string(ready.at("path").get<std::string>()),
                                            ready.at("reason").get<std::string>()};
      }
      if (g.source.empty()) g.source = note;
      continue;
    }
    g.silent.push_back(static_cast<int>(r));
    if (g.silent_note.empty())
      g.silent_note = status == "off" ? note : "no NCCL INFO line named the rank (" + note + ")";
  }
  g.ranks = fabric::merge_ranks(std::move(g.ranks));
  return g;
}

std::vector<std::string> report_lines(const Gathered& g) {
  std::vector<std::string> lines;
  const std::string head = "# Transport (NCCL's INFO lines, " + g.source + ")";
  const auto summary = fabric::render_transport_summary(g.ranks);
  if (summary.size() == 1) {
    lines.push_back(head + ": " + summary.front());
  } else if (!summary.empty()) {
    lines.push_back(head + ", per rank:");
    for (const auto& line : summary) lines.push_back("#   " + line);
  }
  const auto disagreements = fabric::join_gdr_readiness(g.ranks, g.readiness);
  for (std::size_t i = 0; i < disagreements.size() && i < kMostProblemLines; ++i)
    lines.push_back("# Transport vs preflight: " + disagreements[i]);
  if (disagreements.size() > kMostProblemLines)
    lines.push_back("# Transport vs preflight: ... and " + std::to_string(disagreements.size() - kMostProblemLines) +
                    " more ranks");
  if (!g.silent.empty())
    lines.push_back("# Transport not reported by rank(s) " + rank_list(g.silent) + ": " + g.silent_note);
  return lines;
}

// The verdict's lines: PASS, or a FAIL line per problem (the JSON keeps them all).
std::vector<std::string> verdict_lines(const std::vector<std::string>& problems, const FabricRunOptions& options) {
  const std::string what = requirement_text(options);
  if (problems.empty()) return {"# Transport: PASS " + what + " (every rank)"};
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < problems.size() && i < kMostProblemLines; ++i)
    lines.push_back("# Transport: FAIL " + what + ": " + problems[i]);
  if (problems.size() > kMostProblemLines)
    lines.push_back("# Transport: ... and " + std::to_string(problems.size() - kMostProblemLines) + " more FAIL lines");
  lines.push_back("# Transport check failed: nothing was measured (exit code 6, preflight failed)");
  return lines;
}

}  // namespace

TransportOutcome judge_gathered(const std::vector<std::string>& messages, const FabricRunOptions& options) {
  const Gathered g = sort_out(messages);
  TransportOutcome out;
  out.lines = report_lines(g);
  report::TransportReport record;
  record.source = g.ranks.empty() ? g.silent_note : g.source;
  record.required = fabric::to_string(options.required);
  record.require_gdr = options.require_gdr;
  record.status = g.ranks.empty() ? "unavailable" : "reported";
  if (options.requires_transport()) {
    for (int r : g.silent) record.problems.push_back("rank " + std::to_string(r) + " cannot be verified: " + g.silent_note);
    if (!g.ranks.empty())
      for (auto& p : fabric::judge_transport(g.ranks, options.required, options.require_gdr)) record.problems.push_back(p);
    out.failed = !record.problems.empty();
    record.status = out.failed ? "fail" : "pass";
    const auto verdict = verdict_lines(record.problems, options);
    out.lines.insert(out.lines.end(), verdict.begin(), verdict.end());
  }
  for (const auto& r : g.ranks) record.ranks.push_back(fabric::to_record(r));
  out.record = std::move(record);
  return out;
}

TransportCheck::TransportCheck(const FabricRunOptions& options, bool may_use_nccl) : options_(options) {
  if (may_use_nccl && nccl_backend_built()) capture_ = std::make_unique<fabric::NcclLogCapture>();
}

TransportOutcome TransportCheck::verify(World& world, Backend& backend, Watchdog& watchdog, double timeout_s,
                                        const std::string& why_mpi) {
  TransportOutcome out;
  if (backend.name() != "nccl") {
    if (capture_) capture_->finish();
    if (options_.requires_transport()) throw_usage(transport_needs_nccl(options_, why_mpi));
    return out;
  }
  if (!capture_) throw Error(ErrorKind::Runtime, "the nccl backend started without the transport capture");
  connect_peers(world, backend, watchdog, timeout_s);
  const std::string mine = own_message(*capture_, world);
  capture_->finish();  // NCCL has read its settings: the folder and the variables go now
  const auto all = world.gather(mine, Phase{"transport report", Deadline::after(timeout_s)});
  int failed = 0;
  if (world.rank() == 0) {
    out = judge_gathered(all, options_);
    failed = out.failed ? 1 : 0;
  }
  world.broadcast(&failed, sizeof failed, 0, Phase{"transport verdict", Deadline::after(timeout_s)});
  out.failed = failed != 0;
  return out;
}

}  // namespace commsweep
