#include "cli/sweep_command.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/run_setup.hpp"
#include "report/json.hpp"
#include "report/table.hpp"
#include "runtime/error.hpp"
#include "runtime/termination.hpp"
#include "runtime/watchdog.hpp"
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
      << " timer: " << (c.device_timer ? "device" : "host") << " timeout: " << c.timeout_s << "s";
  return out.str();
}

}  // namespace

int run_sweep_command(World& world, const CliOptions& o, char** envp, RankContext& context) {
  const bool root = world.rank() == 0;
  require_writable_results(world, o.json_path, o.sweep.timeout_s);
  Watchdog watchdog(world);
  RunSetup run = start_run(world, watchdog, o.backend, o.sweep.timeout_s, o.arguments, envp, context);
  Backend& backend = *run.backend.backend;
  SweepConfig config = o.sweep;
  std::string timer_note;
  if (config.device_timer && backend.name() != "nccl") {
    config.device_timer = false;  // auto chose mpi: it has only the host clock
    timer_note = "--timer device: the mpi backend times with MPI_Wtime (host)";
  }

  report::Results results;
  results.provenance = run.provenance;
  report::TablePrinter printer(std::cout);
  report::TableHeader header;
  if (root) {
    header.version_line = run.version_line;
    header.parameters_line = parameters_line(world, config, world.ranks_per_host().size());
    header.device_lines = run.device_lines;
    std::cout << "# " << world_summary(world) << "\n# " << run.backend.note << "\n";
    if (!timer_note.empty()) std::cout << "# " << timer_note << "\n";
  }

  // Every rank plans the same sizes and reaches the same notes: rank 0 alone prints them.
  const SweepSink sink{[&](const report::ResultRow& row) { printer.row(row); },
                       [&](const std::string& text) {
                         if (root) printer.note(text);
                       }};
  Sweep sweep(world, backend, watchdog, config);
  for (int cycle = 0; (config.cycles == 0 || cycle < config.cycles) && !sweep.interrupted(); ++cycle) {
    for (const auto& name : o.tests) {
      if (sweep.interrupted()) break;
      const CollectiveTest& test = *find_collective_test(name);
      if (root) {
        header.test = std::string(test.name);
        printer.header(header);
      }
      auto rows = sweep.run(test, sink);
      std::uint64_t wrong = 0;
      for (const auto& r : rows) {
        wrong += r.out_of_place.wrong.value_or(0) + r.in_place.wrong.value_or(0);
      }
      if (root && sweep.interrupted()) printer.note(interrupted_note());
      if (root) printer.footer(std::string(test.name), wrong, report::average_busbw(rows));
      results.wrong_total += wrong;
      for (auto& r : rows) results.rows.push_back(std::move(r));
    }
  }
  results.avg_busbw_gbps = report::average_busbw(results.rows);

  results.complete = !sweep.interrupted();
  if (!results.complete) results.interrupted_by = termination_signal_name();
  if (root) write_results(o.json_path, results);
  return exit_code_of(results);
}

}  // namespace commsweep
