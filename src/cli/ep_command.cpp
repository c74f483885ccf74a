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

int run_ep_command(World& world, const EpCliOptions& o, char** envp, RankContext& context) {
  const bool root = world.rank() == 0;
  require_writable_results(world, o.json_path, o.config.timeout_s);
  Watchdog watchdog(world);
  RunSetup run = start_run(world, watchdog, o.backend, o.config.timeout_s, o.arguments, envp, context);
  const auto exchange = make_exchange(world, *run.backend.backend);
  // Nodes for --topk-groups: the ranks of one host (MPI_COMM_TYPE_SHARED) form a node.
  ep::EpSweep sweep(world, *exchange, watchdog, o.config, world.local_size());
  sweep.validate();

  report::Results results;
  results.provenance = run.provenance;
  report::EpTablePrinter printer(std::cout);
  if (root) {
    std::cout << "# " << world_summary(world) << "\n# " << run.backend.note << "\n";
    printer.header({run.version_line, parameters_line(world, o.config), run.device_lines});
  }
  results.ep_rows = sweep.run([&](const report::EpRow& row) { printer.row(row); });
  for (const auto& r : results.ep_rows) results.wrong_total += r.dispatch.wrong + r.combine.wrong;
  results.complete = !sweep.interrupted();
  if (!results.complete) results.interrupted_by = termination_signal_name();
  if (root && !results.complete) printer.note(interrupted_note());
  if (root) printer.footer(results.wrong_total);

  if (root) write_results(o.json_path, results);
  return exit_code_of(results);
}

}  // namespace commsweep
