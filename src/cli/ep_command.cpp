#include "cli/ep_command.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/measuring_run.hpp"
#include "cli/run_setup.hpp"
#include "ep/ep_sweep.hpp"
#include "ep/host_exchange.hpp"
#include "report/ep_table.hpp"
#include "report/json.hpp"
#include "runtime/error.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "ep/lsa_exchange.hpp"
#include "ep/nccl_exchange.hpp"
#endif

namespace commsweep {
namespace {

std::string parameters_line(const World& world, const ep::EpConfig& c) {
  std::ostringstream out;
  out << "nRanks " << world.size() << " nHosts " << world.node_count() << " warmup iters: "
      << c.warmup << " iters: " << c.iters << " validation: " << (c.check ? 1 : 0)
      << " skew: " << c.skew << " topk-groups: " << c.topk_groups << " seed: " << c.seed
      << " timeout: " << c.timeout_s << "s";
  return out.str();
}

std::unique_ptr<ep::EpExchange> make_exchange(World& world, Backend& backend, ep::EpImpl impl,
                                              double timeout_s, int blocks) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  if (auto* nccl = dynamic_cast<NcclBackend*>(&backend)) {
    if (impl == ep::EpImpl::Lsa) {
      const Phase setup{"ep lsa set-up (device communicator)", Deadline::after(timeout_s)};
      return std::make_unique<ep::LsaExchange>(world, *nccl, setup, blocks);
    }
    return std::make_unique<ep::NcclExchange>(world, *nccl);
  }
#endif
  (void)timeout_s;
  (void)blocks;
  if (impl == ep::EpImpl::Lsa) {
    throw_usage("--ep-impl lsa: needs the nccl backend (GPUs, NCCL 2.28+); this run uses the " +
                std::string(backend.name()) + " backend");
  }
  return std::make_unique<ep::HostExchange>(world);
}

// "" where every rank's `refusal` is empty; else the first refusing rank's, naming it where
// there are several ranks (their libraries may differ), on every rank.
std::string agreed_refusal(World& world, const std::string& refusal, double timeout_s) {
  const Phase phase{"NCCL version policy (--ep-impl)", Deadline::after(timeout_s)};
  const auto all = world.gather(refusal, phase);
  std::string message;
  if (world.rank() == 0) {
    for (std::size_t r = 0; r < all.size() && message.empty(); ++r) {
      if (all[r].empty()) continue;
      message = world.size() > 1 ? "rank " + std::to_string(r) + " (" + world.hosts_by_rank()[r] + "): " + all[r]
                                 : all[r];
    }
  }
  int length = static_cast<int>(message.size());
  world.broadcast(&length, sizeof(length), 0, phase);
  message.resize(static_cast<std::size_t>(length));
  if (length > 0) world.broadcast(message.data(), length, 0, phase);
  return message;
}

bool asks_for(const ep::EpConfig& config, ep::EpImpl impl) {
  return std::find(config.impls.begin(), config.impls.end(), impl) != config.impls.end();
}

}  // namespace

std::string apply_ep_nccl_policy(World& world, RunSetup& run, ep::EpConfig& config) {
  if (!run.backend.nccl) return "";  // the mpi backend: no NCCL (lsa is refused when made)
  using nccl_policy::Path;
  const nccl_policy::Versions& v = *run.backend.nccl;
  if (asks_for(config, ep::EpImpl::Alltoallv)) record_nccl_decision(run, nccl_policy::decide(Path::AlltoallvEp, v));
  if (!asks_for(config, ep::EpImpl::Lsa)) return "";
  nccl_policy::Decision lsa = nccl_policy::decide(Path::LsaEp, v);
  nccl_policy::Decision counts = nccl_policy::decide(Path::LlAllToAllCounts, v);
  const std::string why = agreed_refusal(world, lsa.refused() ? lsa.message : "", config.timeout_s);
  if (!why.empty() && !lsa.refused()) {  // another rank's library
    lsa = {Path::LsaEp, nccl_policy::Verdict::Refused, why, {}};
    counts = {Path::LlAllToAllCounts, nccl_policy::Verdict::Refused,
              "the counts' LL all-to-all needs the lsa device communicator: " + why, {}};
  }
  record_nccl_decision(run, lsa);
  record_nccl_decision(run, counts);
  return leave_out_refused_lsa(config, why);
}

std::string leave_out_refused_lsa(ep::EpConfig& config, const std::string& refusal) {
  if (refusal.empty() || !asks_for(config, ep::EpImpl::Lsa)) return "";
  // Never a silent fallback: lsa alone is an error; beside alltoallv, a note says why it is gone.
  if (config.impls.size() == 1) throw Error(ErrorKind::Runtime, "--ep-impl lsa: " + refusal);
  config.impls.erase(std::remove(config.impls.begin(), config.impls.end(), ep::EpImpl::Lsa), config.impls.end());
  return "--ep-impl lsa left out by the NCCL version policy (the rows are alltoallv's only): " + refusal;
}

void check_ep_config(const World& world, const ep::EpConfig& config) {
  ep::validate_cases(config, world.size());
}

EpOutcome run_ep_sweep(World& world, Backend& backend, RunControl& control, const RunSetup& run,
                       const ep::EpConfig& config, std::ostream& out, const std::string& policy_note) {
  const bool root = world.rank() == 0;
  std::vector<std::unique_ptr<ep::EpExchange>> exchanges;
  std::vector<ep::NamedExchange> named;
  for (const ep::EpImpl impl : config.impls) {
    exchanges.push_back(make_exchange(world, backend, impl, config.timeout_s, config.lsa_blocks));
    named.push_back({impl, exchanges.back().get()});
  }
  // Nodes for --topk-groups: World's nodes (hosts, or NCCL_HOSTID groups).
  ep::EpSweep sweep(world, named, control, config, world.node_size());

  report::EpTablePrinter printer(out);
  if (root) printer.header({run.version_line, parameters_line(world, config), run.device_lines});
  if (root && !policy_note.empty()) printer.note(policy_note);
  EpOutcome outcome;
  outcome.rows = sweep.run([&](const report::EpRow& row) {
    if (run.keeper) run.keeper->add(row);  // kept before it is shown
    printer.row(row);
  });
  outcome.wrong = report::wrong_elements(outcome.rows);
  outcome.interrupted = control.interrupted();
  if (root && outcome.interrupted) printer.note(interrupted_note());
  for (const auto& x : exchanges) {  // after the rows: how each ran is known once it has
    if (root && !x->note().empty()) printer.note(x->note());
  }
  if (root) printer.footer(outcome.wrong);
  return outcome;
}

int run_ep_command(World& world, const EpCliOptions& o, char** envp, RankContext& context) {
  check_ep_config(world, o.config);  // before anything runs or is printed
  ResultsRun run(world, {o.backend, o.config.timeout_s, o.json_path, o.arguments, o.fabric, {o.shape, o.force_topology}},
                 envp, context);
  ep::EpConfig config = o.config;
  std::string policy_note;
  if (!run.start([&](RunSetup& setup) { policy_note = apply_ep_nccl_policy(world, setup, config); })) {
    return run.end_failed_transport();
  }
  report::Results results = run.header();
  if (!policy_note.empty()) results.notes.push_back(policy_note);
  run.keep(results);
  EpOutcome outcome = run_ep_sweep(world, run.backend(), run.control(), run.setup(), config, std::cout, policy_note);
  results.ep_rows = std::move(outcome.rows);
  results.wrong_total = outcome.wrong;
  return run.finish(results);
}

}  // namespace commsweep
