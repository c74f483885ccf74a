#include "cli/sweep_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/provenance.hpp"
#include "comm/make_backend.hpp"
#include "report/json.hpp"
#include "report/table.hpp"
#include "runtime/error.hpp"
#include "runtime/gpu.hpp"
#include "runtime/watchdog.hpp"
#include "sweep/sweep.hpp"
#include "version.hpp"

namespace commsweep {
namespace {

// Rank 0 learns every rank's device: "device|pci|name|pid".
std::vector<report::GpuInfo> gather_gpus(World& world, const report::GpuInfo& mine, double timeout,
                                         std::vector<int>* pids) {
  std::ostringstream line;
  line << mine.device << "|" << mine.pci_bus_id << "|" << getpid() << "|" << mine.name;
  const auto all = world.gather(line.str(), Phase{"device inventory", Deadline::after(timeout)});
  std::vector<report::GpuInfo> gpus;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::istringstream in(all[r]);
    report::GpuInfo g;
    std::string device, pid;
    std::getline(in, device, '|');
    std::getline(in, g.pci_bus_id, '|');
    std::getline(in, pid, '|');
    std::getline(in, g.name);
    g.rank = static_cast<int>(r);
    g.host = world.hosts_by_rank()[r];
    g.device = std::stoi(device);
    pids->push_back(std::stoi(pid));
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::string world_summary(const World& world) {
  std::ostringstream out;
  const auto hosts = world.ranks_per_host();
  out << "World: " << world.size() << " ranks on " << hosts.size()
      << (hosts.size() == 1 ? " host:" : " hosts:");
  for (const auto& [host, n] : hosts) out << " " << host << " (" << n << (n == 1 ? " rank)" : " ranks)");
  return out.str();
}

std::string device_line(const report::GpuInfo& g, int pid) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s", g.rank,
                pid, g.host.c_str(), g.device, g.pci_bus_id.c_str(), g.name.c_str());
  return buf;
}

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
  Watchdog watchdog(world);
  BackendSetup setup;
  {
    const auto guard =
        watchdog.watch(Phase{"backend set-up", Deadline::after(o.sweep.timeout_s)});
    setup = make_backend(world, o.backend, o.sweep.timeout_s);
  }
  context.device = setup.gpu.device;
  SweepConfig config = o.sweep;
  std::string timer_note;
  if (config.device_timer && setup.backend->name() != "nccl") {
    config.device_timer = false;  // auto chose mpi: it has only the host clock
    timer_note = "--timer device: the mpi backend times with MPI_Wtime (host)";
  }
  std::vector<int> pids;
  const auto gpus = gather_gpus(world, setup.gpu, o.sweep.timeout_s, &pids);

  report::Results results;
  report::TablePrinter printer(std::cout);
  report::TableHeader header;
  if (root) {
    auto& p = results.provenance;
    p.commsweep_version = kVersion;
    p.git_hash = kGitHash;
    p.started_at = utc_now_iso8601();
    p.backend = std::string(setup.backend->name());
    p.ranks = world.size();
    p.hosts = world.hosts_by_rank();
    p.gpus = gpus;
    p.driver_version = gpu_driver_version();
    p.cuda_version = cuda_runtime_version();
    p.nccl_version = setup.nccl_version;
    p.nccl_headers_version = setup.nccl_headers_version;
    p.mpi_version = mpi_library_version();
    p.environment = fabric_environment(envp);
    p.arguments = o.arguments;

    header.version_line = std::string("commsweep version ") + kVersion + " (" + kGitHash +
                          ") backend " + p.backend + " nccl-headers=" +
                          setup.nccl_headers_version + " nccl-library=" + setup.nccl_version;
    header.parameters_line =
        parameters_line(world, config, world.ranks_per_host().size());
    for (std::size_t r = 0; r < gpus.size(); ++r) header.device_lines.push_back(device_line(gpus[r], pids[r]));
    std::cout << "# " << world_summary(world) << "\n# " << setup.note << "\n";
    if (!timer_note.empty()) std::cout << "# " << timer_note << "\n";
  }

  // Every rank plans the same sizes and reaches the same notes: rank 0 alone prints them.
  const SweepSink sink{[&](const report::ResultRow& row) { printer.row(row); },
                       [&](const std::string& text) {
                         if (root) printer.note(text);
                       }};
  Sweep sweep(world, *setup.backend, watchdog, config);
  for (int cycle = 0; config.cycles == 0 || cycle < config.cycles; ++cycle) {
    for (const auto& name : o.tests) {
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
      if (root) printer.footer(std::string(test.name), wrong, report::average_busbw(rows));
      results.wrong_total += wrong;
      for (auto& r : rows) results.rows.push_back(std::move(r));
    }
  }
  results.avg_busbw_gbps = report::average_busbw(results.rows);

  if (root && !o.json_path.empty()) {
    try {
      report::write_file_atomically(o.json_path, report::to_json(results).dump(2) + "\n");
      std::cout << "# Results written to " << o.json_path << "\n";
    } catch (const std::runtime_error& e) {
      throw Error(ErrorKind::Runtime, std::string("--json: ") + e.what());
    }
  }
  return results.wrong_total == 0 ? exit_code::kOk : exit_code::kWrongResults;
}

}  // namespace commsweep
