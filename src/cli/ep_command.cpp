#include "cli/ep_command.hpp"

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/run_setup.hpp"
#include "ep/ep_sweep.hpp"
#include "ep/host_exchange.hpp"
#include "report/ep_table.hpp"
#include "report/json.hpp"
#include "runtime/error.hpp"
#include "runtime/termination.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
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

std::unique_ptr<ep::EpExchange> make_exchange(World& world, Backend& backend) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  if (auto* nccl = dynamic_cast<NcclBackend*>(&backend)) {
    return std::make_unique<ep::NcclExchange>(world, *nccl);
  }
#endif
  (void)backend;
  return std::make_unique<ep::HostExchange>(world);
}

}  // namespace

void check_ep_config(const World& world, const ep::EpConfig& config) {
  for (const ep::EpCase& c : ep::expand(config)) {
    if (const std::string why = ep::invalid(c, world.size()); !why.empty()) throw_usage(why);
  }
}

EpOutcome run_ep_sweep(World& world, Backend& backend, Watchdog& watchdog, const RunSetup& run,
                       const ep::EpConfig& config, std::ostream& out) {
  const bool root = world.rank() == 0;
  const auto exchange = make_exchange(world, backend);
  // Nodes for --topk-groups: the ranks of one host (MPI_COMM_TYPE_SHARED) form a node.
  ep::EpSweep sweep(world, *exchange, watchdog, config, world.node_size());
  sweep.validate();

  report::EpTablePrinter printer(out);
  if (root) printer.header({run.version_line, parameters_line(world, config), run.device_lines});
  EpOutcome outcome;
  outcome.rows = sweep.run([&](const report::EpRow& row) { printer.row(row); });
  for (const auto& r : outcome.rows) outcome.wrong += r.dispatch.wrong + r.combine.wrong;
  outcome.interrupted = sweep.interrupted();
  if (root && outcome.interrupted) printer.note(interrupted_note());
  if (root) printer.footer(outcome.wrong);
  return outcome;
}

int run_ep_command(World& world, const EpCliOptions& o, char** envp, RankContext& context) {
  require_writable_results(world, o.json_path, o.config.timeout_s);
  Watchdog watchdog(world);
  RunSetup run = start_run(world, watchdog, o.backend, o.config.timeout_s, o.arguments, envp, context,
                           TopologyRequest{o.shape, o.force_topology});
  check_ep_config(world, o.config);  // before anything is printed
  if (world.rank() == 0) {
    std::cout << "# " << world_summary(world) << "\n# " << run.backend.note << "\n";
    if (!run.topology_note.empty()) std::cout << "# " << run.topology_note << "\n";
  }
  EpOutcome outcome = run_ep_sweep(world, *run.backend.backend, watchdog, run, o.config, std::cout);
  report::Results results;
  results.provenance = run.provenance;
  results.ep_rows = std::move(outcome.rows);
  results.wrong_total = outcome.wrong;
  results.complete = !outcome.interrupted;
  if (!results.complete) results.interrupted_by = termination_signal_name();
  if (world.rank() == 0) write_results(o.json_path, results);
  return exit_code_of(results);
}

}  // namespace commsweep
