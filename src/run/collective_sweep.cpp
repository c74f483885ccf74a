#include "run/sweeps.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "run/expected_run.hpp"
#include "run/progress.hpp"
#include "run/run_setup.hpp"
#include "collectives/collective_test.hpp"
#include "comm/make_backend.hpp"
#include "core/strings.hpp"
#include "report/gpu_findings.hpp"
#include "report/iteration_stats.hpp"
#include "report/json.hpp"
#include "runtime/gpu.hpp"
#include "report/table.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "faults/sweep_faults.hpp"
#include "run/gpu_window_observer.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {
namespace {

std::string parameters_line(const World& world, const SweepConfig& c, std::size_t hosts) {
  std::ostringstream out;
  out << "nRanks " << world.size() << " nHosts " << hosts << " minBytes " << c.min_bytes
      << " maxBytes " << c.max_bytes << " step: ";
  if (c.step_factor > 1) {
    out << c.step_factor << "(factor)";
  } else {
    out << c.step_bytes << "(bytes)";
  }
  out << " warmup iters: " << c.warmup << " iters: " << c.iters << " agg iters: 1 validation: "
      << c.check << " graph: " << c.graph_launches << " blocking: " << (c.blocking ? 1 : 0)
      << " timer: " << (c.device_timer ? "device" : "host") << " buffers: " << name_of(c.buffers)
      << " timeout: " << c.timeout_s << "s";
  return out.str();
}

// Rows the sweep will print, for the progress line (an upper bound: sizes below one element
// per rank are skipped); 0 for an endless sweep.
std::size_t planned_rows(const std::vector<std::string>& tests, const SweepConfig& c) {
  std::size_t rows = 0;
  for (const auto& name : tests) {
    rows += c.types.size() * (find_collective_test(name)->reduces ? c.ops.size() : 1) * size_list(c).size();
  }
  return rows * static_cast<std::size_t>(c.cycles);
}

}  // namespace

void check_collective_sweep(World& world, const std::vector<std::string>& tests, const SweepConfig& config,
                            BackendChoice backend, const std::string& named) {
  for (const auto& name : tests) require_root_in_job(*find_collective_test(name), config.root, world.size(), named);
  if (config.graph_launches == 0 || backend != BackendChoice::Auto) return;
  // -G with --backend auto: only a job whose every rank has a GPU gets the nccl backend.
  std::string why_none;
  const bool gpu = nccl_backend_built() && visible_gpu_count(&why_none) > 0;
  const auto without = world.sum(gpu ? 0 : 1, Phase{"GPU discovery", Deadline::after(config.timeout_s)});
  if (without > 0) {
    throw_usage("-G/--cudagraph needs the nccl backend, and --backend auto chooses mpi here (" +
                (nccl_backend_built() ? std::to_string(without) + " of " +
                                            count_of(static_cast<std::size_t>(world.size()), "rank") +
                                            (without == 1 ? " sees no GPU" : " see no GPU")
                                      : std::string("built without CUDA/NCCL")) +
                ")");
  }
}

std::string timer_name(const SweepConfig& config, const Backend& backend) {
  return config.device_timer && backend.name() == "nccl" ? "device" : "host";  // mpi: MPI_Wtime only
}

CollectiveOutcome run_collective_sweep(World& world, Backend& backend, RunControl& control,
                                       const RunSetup& run, const std::vector<std::string>& tests,
                                       SweepConfig config, std::ostream& out) {
  const bool root = world.rank() == 0;
  if (config.device_timer && backend.name() != "nccl") {
    config.device_timer = false;  // auto chose mpi: it has only the host clock
    if (root) out << "# --timer device: the mpi backend times with MPI_Wtime (host)\n";
  }
  report::TablePrinter printer(out, report::TableColumns{config.show_algo, config.show_iterations, config.show_expected});
  const regress::Expectations none;
  const regress::Expectations& expected = run.expected ? *run.expected : none;
  if (root && !backend.choice_note().empty()) out << "# NCCL's algorithm per row: unknown: " << backend.choice_note() << "\n";
  report::TableHeader header;
  if (root) {
    header.version_line = run.version_line;
    header.parameters_line = parameters_line(world, config, world.ranks_per_host().size());
    header.device_lines = run.device_lines;
  }

  // Every rank plans the same sizes and reaches the same notes: rank 0 alone prints them.
  ProgressLine progress(root && isatty(STDERR_FILENO), planned_rows(tests, config));
  const SweepSink sink{[&](const report::ResultRow& measured) {
                         progress.clear();
                         report::ResultRow row = measured;
                         regress::annotate(expected, row);  // its expected busbw, where one applies
                         // Kept before it is shown: a row the user saw is in the file.
                         if (run.keeper) run.keeper->add(row);
                         printer.row(row);
                         out.flush();
                         progress.step(row.test, row.size_bytes);
                       },
                       [&](const std::string& text) {
                         progress.clear();
                         if (root) printer.note(text);
                       }};
  CollectiveOutcome outcome;
  faults::SweepFaults faults(config.fault, world.rank(), backend, control);  // --fault, testing only
  // The GPU's state around each timed window (docs/gpu-state.md); every rank has one.
  const std::string backend_name(backend.name());
  NvmlWindowObserver gpu_state(backend_name, world.local_rank(),
                               backend_name == "nccl" ? planned_gpu_bus_id(world.local_rank()) : "");
  Sweep sweep(world, backend, control, config, &faults, &gpu_state);
  for (int cycle = 0; (config.cycles == 0 || cycle < config.cycles) && !control.interrupted(); ++cycle) {
    for (const auto& name : tests) {
      if (control.interrupted()) break;
      const CollectiveTest& test = *find_collective_test(name);
      progress.clear();
      if (root) {
        header.test = std::string(test.name);
        printer.header(header);
      }
      auto rows = sweep.run(test, sink);
      for (auto& r : rows) regress::annotate(expected, r);
      const std::uint64_t wrong = report::wrong_elements(rows);
      progress.clear();
      if (root && control.interrupted()) printer.note(interrupted_note());
      if (root) printer.footer(std::string(test.name), wrong, report::average_busbw(rows));
      // After the table: a rank that was the slowest in most of its timings (report/iteration_stats.hpp).
      const double bound = report::straggler_min_slower_pct(std::string(backend.name()));
      const report::SlowestTally tally = report::slowest_tally(rows, bound);
      if (const std::string finding = report::straggler_finding(tally, world.hosts_by_rank()); root && !finding.empty()) {
        // Joined to its GPU's state: a straggler held by a throttle reason is laid at it.
        const std::string held = report::throttle_during(rows, *report::consistent_straggler(tally));
        printer.note(held.empty() ? finding : finding + "; its GPU was throttled: " + held);
      }
      if (root)
        for (const std::string& finding : report::gpu_state_findings(rows, world.hosts_by_rank())) printer.note(finding);
      // Then each row below its expected busbw's floor, once, naming its slowest rank and node.
      if (root) {
        for (auto& f : expected_findings(expected, rows, world.hosts_by_rank())) {
          printer.note(f.text);
          outcome.expected_findings.push_back(std::move(f));
        }
      }
      outcome.wrong += wrong;
      for (auto& r : rows) outcome.rows.push_back(std::move(r));
    }
  }
  if (const std::string note = gpu_state_note(gpu_state); root && !note.empty()) printer.note(note);
  outcome.interrupted = control.interrupted();
  return outcome;
}

}  // namespace commsweep
