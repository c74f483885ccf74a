#include "run/sweeps.hpp"

#include <iostream>
#include <sstream>

#include "run/run_setup.hpp"
#include "ep/ep_sweep.hpp"
#include "ep/make_exchange.hpp"
#include "ep/nccl_policy.hpp"
#include "faults/ep_faults.hpp"
#include "run/expected_run.hpp"
#include "run/gpu_window_observer.hpp"
#include "runtime/gpu.hpp"
#include "report/ep_table.hpp"
#include "report/gpu_findings.hpp"
#include "report/json.hpp"

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

}  // namespace

std::string apply_ep_nccl_policy(World& world, RunSetup& run, ep::EpConfig& config) {
  if (!run.backend.nccl) return "";  // the mpi backend: no NCCL (lsa is refused when made)
  const auto refusals = ep::decide_nccl_policy(world, *run.backend.nccl, config,
                                               [&](const nccl_policy::Decision& d) { record_nccl_decision(run, d); });
  return ep::leave_out_refused(config, refusals);
}

void check_ep_config(const World& world, const ep::EpConfig& config) {
  ep::validate_cases(config, world.size());
}

EpOutcome run_ep_sweep(World& world, Backend& backend, RunControl& control, const RunSetup& run,
                       const ep::EpConfig& config, std::ostream& out, const std::string& policy_note) {
  const bool root = world.rank() == 0;
  ep::Exchanges exchanges(world, backend, config);
  // Nodes for --topk-groups: World's nodes (hosts, or NCCL_HOSTID groups).
  faults::EpFaults faults(config.fault_wrong_rank, world.rank());  // --fault, testing only
  // The GPU's state around each case's timed iterations (docs/gpu-state.md); every rank has one.
  const std::string backend_name(backend.name());
  NvmlWindowObserver gpu_state(backend_name, world.local_rank(),
                               backend_name == "nccl" ? planned_gpu_bus_id(world.local_rank()) : "");
  ep::EpSweep sweep(world, exchanges.named(), control, config, world.node_size(), &faults, &gpu_state);

  report::EpTablePrinter printer(out, config.show_expected);
  if (root) printer.header({run.version_line, parameters_line(world, config), run.device_lines});
  if (root && !policy_note.empty()) printer.note(policy_note);
  const regress::Expectations none;
  const regress::Expectations& expected = run.expected ? *run.expected : none;  // rank 0's
  EpOutcome outcome;
  outcome.rows = sweep.run([&](const report::EpRow& measured) {
    report::EpRow row = measured;
    annotate_ep(expected, row);  // each phase's expected time, where an entry applies
    if (run.keeper) run.keeper->add(row);  // kept before it is shown
    printer.row(row);
  });
  for (auto& row : outcome.rows) annotate_ep(expected, row);
  outcome.wrong = report::wrong_elements(outcome.rows);
  outcome.interrupted = control.interrupted();
  if (root && outcome.interrupted) printer.note(interrupted_note());
  for (const auto& note : exchanges.notes()) {  // after the rows: how each ran is known once it has
    if (root && !note.empty()) printer.note(note);
  }
  if (root) printer.footer(outcome.wrong);
  if (root)
    for (const std::string& finding : report::gpu_state_findings(outcome.rows, world.hosts_by_rank())) printer.note(finding);
  // Then each phase below its expected time's floor, once, naming its slowest rank and node.
  if (root) {
    for (auto& f : ep_expected_findings(expected, outcome.rows, world.hosts_by_rank())) {
      printer.note(f.text);
      outcome.expected_findings.push_back(std::move(f));
    }
  }
  // Said where a GPU was read, or could not be on a GPU backend; the mpi backend's ep says nothing
  // (its device lines say host memory), as its pages' outputs show.
  if (root && (gpu_state.reads() > 0 || backend_name == "nccl"))
    if (const std::string note = gpu_state_note(gpu_state); !note.empty()) printer.note(note);
  return outcome;
}

}  // namespace commsweep
