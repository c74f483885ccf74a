#include "run/run_setup.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <cstdint>
#include <map>
#include <sstream>

#include "run/provenance.hpp"
#include "run/rank_binding.hpp"
#include "run/run_transport.hpp"
#include "core/strings.hpp"
#include "output/output_file.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/termination.hpp"
#include "runtime/gpu.hpp"
#include "version.hpp"

namespace commsweep {
namespace {

// Rank 0 learns every rank's device and its host's online cores: "device|pci|pid|cores|name".
std::vector<report::GpuInfo> gather_gpus(World& world, const GpuChoice& mine, double timeout,
                                         std::vector<int>* pids, std::map<std::string, long>* cores) {
  std::ostringstream line;
  line << mine.device << "|" << mine.pci_bus_id << "|" << getpid() << "|" << sysconf(_SC_NPROCESSORS_ONLN) << "|"
       << mine.name;
  const auto all = world.gather(line.str(), Phase{"device inventory", Deadline::after(timeout)});
  std::vector<report::GpuInfo> gpus;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::istringstream in(all[r]);
    report::GpuInfo g;
    std::string device, pid, online;
    std::getline(in, device, '|');
    std::getline(in, g.pci_bus_id, '|');
    std::getline(in, pid, '|');
    std::getline(in, online, '|');
    std::getline(in, g.name);
    g.rank = static_cast<int>(r);
    g.host = world.hosts_by_rank()[r];
    g.device = std::stoi(device);
    pids->push_back(std::stoi(pid));
    (*cores)[g.host] = std::stol(online);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::string device_line(const report::GpuInfo& g, int pid) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s", g.rank,
                pid, g.host.c_str(), g.device, g.pci_bus_id.c_str(), g.name.c_str());
  return buf;
}

// A '#' warning for every host with more ranks than cores: the ranks then take turns on the
// cores, and the times measure the scheduler as much as the fabric.
std::vector<std::string> oversubscription_warnings(const World& world, const std::map<std::string, long>& cores) {
  std::vector<std::string> lines;
  for (const auto& [host, ranks] : world.ranks_per_host()) {
    const auto it = cores.find(host);
    if (it == cores.end() || it->second <= 0 || ranks <= it->second) continue;
    lines.push_back("# warning: " + count_of(static_cast<std::size_t>(ranks), "rank") + " on " + host + ", which has " +
                    count_of(static_cast<std::size_t>(it->second), "core") +
                    ": the ranks take turns on the cores, so the times measure the scheduler as much as the "
                    "fabric (start at most " + std::to_string(it->second) + " ranks there)");
  }
  return lines;
}

}  // namespace

void require_writable_results(World& world, const std::string& path, double timeout_s) {
  if (path.empty()) return;
  // Rank 0 writes the results, so its file system is the one that counts; all ranks agree.
  const std::string why = world.rank() == 0 ? output::cannot_write_reason(path) : "";
  const Phase phase{"checking --json", Deadline::after(timeout_s)};
  if (world.sum(why.empty() ? 0 : 1, phase) > 0) {
    throw_usage("--json " + path + ": cannot write the results there: " + why);
  }
}

std::string argument_mismatch(World& world, const std::vector<std::string>& arguments) {
  // FNV-1a over the arguments, each followed by a NUL: the same on every build and host.
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const auto& a : arguments) {
    for (const char c : a + std::string(1, '\0')) {
      hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    }
  }
  // Generous: ranks of a large job may start seconds apart.
  const Phase phase{"argument check at start", Deadline::after(120)};
  const auto all = world.gather(std::to_string(hash), phase);
  std::string message;
  if (world.rank() == 0) {
    std::ostringstream differ;
    int count = 0;
    for (std::size_t r = 1; r < all.size(); ++r) {
      if (all[r] == all[0]) continue;
      differ << (count++ ? ", " : "") << r << " (" << world.hosts_by_rank()[r] << ")";
    }
    if (count > 0) {
      message = "the ranks were started with different arguments: rank(s) " + differ.str() +
                " differ from rank 0; every rank must run the same command line";
    }
  }
  int length = static_cast<int>(message.size());
  world.broadcast(&length, sizeof(length), 0, phase);
  message.resize(static_cast<std::size_t>(length));
  if (length > 0) world.broadcast(message.data(), length, 0, phase);
  return message;
}

judge::Outcomes outcomes_of(const report::Results& results) {
  judge::Outcomes o = judge::run_ending(results.wrong_total, results.complete, !results.health_fail.empty());
  // A row below its expected figure's FAIL floor (regress/expected.hpp).
  o.slow = report::expected_fail(results);
  return o;
}

std::string interrupted_note() {
  return termination_description() +
         ": the rows above were measured, the rest were not (results marked incomplete)";
}

void record_nccl_decision(RunSetup& run, const nccl_policy::Decision& d) {
  for (const auto& known : run.nccl_policy) {
    if (known.path == d.path) return;
  }
  run.nccl_policy.push_back(d);
  report::NcclPolicyDecision record{d.path,
                                    std::string(nccl_policy::name_of(d.verdict)), d.message, {}};
  for (const auto& s : d.settings) {
    record.settings.push_back({s.name, s.value, std::string(nccl_policy::name_of(s.how)), s.why});
  }
  run.provenance.nccl_policy.push_back(std::move(record));
}

std::string nccl_policy_line(const RunSetup& run, const nccl_policy::Decision& d) {
  return "# NCCL policy (headers " + run.backend.nccl_headers_version + ", library " + run.backend.nccl_version +
         "): " + nccl_policy::summary(d) + ": " + d.message;
}

void print_preamble(const World& world, const RunSetup& run) {
  if (world.rank() != 0) return;
  std::cout << "# " << world_summary(world) << "\n";
  if (const std::string note = single_rank_note(world.size()); !note.empty()) std::cout << "# " << note << "\n";
  std::cout << "# " << run.backend.note << "\n";
  if (!run.backend.transport_note.empty()) std::cout << "# " << run.backend.transport_note << "\n";
  for (const auto& d : run.nccl_policy) std::cout << nccl_policy_line(run, d) << "\n";
  if (!run.topology_note.empty()) std::cout << "# " << run.topology_note << "\n";
  for (const auto& line : run.fabric_lines) std::cout << line << "\n";
  std::cout << std::flush;
}

std::string world_summary(const World& world) {
  std::ostringstream out;
  const auto hosts = world.ranks_per_host();
  out << "World: " << count_of(static_cast<std::size_t>(world.size()), "rank") << " on "
      << count_of(hosts.size(), "host") << ":";
  for (const auto& [host, n] : hosts) out << " " << host << " (" << n << (n == 1 ? " rank)" : " ranks)");
  return out.str();
}

std::string single_rank_note(int ranks) {
  if (ranks != 1) return "";
  // busbw = algbw x 2(n-1)/n, (n-1)/n, ...: 0 for n = 1 (nccl-tests' PERFORMANCE.md).
  return "1 rank: no byte leaves it, so no link is measured (busbw 0.00); run one rank per GPU, or per "
         "host with --backend mpi: mpirun -np N commsweep (N of 2 or more)";
}

RunSetup start_run(World& world, Watchdog& watchdog, BackendChoice choice, double timeout_s,
                   const std::vector<std::string>& arguments, char** envp, RankContext& context,
                   const TopologyRequest& topology, const FabricRunOptions& fabric,
                   const BackendOptions& backend_options) {
  RunSetup run;
  run.topology_note = prepare_topology(world, topology, timeout_s);
  // Bound before NCCL starts its threads and places its host memory.
  const std::string binding = bind_rank(fabric.bind, world.local_rank());
  run.fabric_lines = gather_binding_lines(world, fabric.bind, binding, timeout_s);
  TransportCheck transport(fabric, choice != BackendChoice::Mpi);  // before NCCL's first call reads NCCL_DEBUG*
  {
    const auto guard = watchdog.watch(Phase{"backend set-up", Deadline::after(timeout_s)});
    run.backend = make_backend(world, choice, timeout_s, backend_options);
  }
  // A hang verdict from here on carries NCCL's own account (or says why there is none).
  run.hang_account = std::make_shared<HangAccount>(run.backend.backend->name() == "nccl");
  witness_hangs_with(world, run.hang_account);
  run.health_check = watchdog.check_health(
      [backend = run.backend.backend.get()] { return backend->asynchronous_error(); });
  context.device = run.backend.gpu.device;
  TransportOutcome verdict = transport.verify(world, *run.backend.backend, watchdog, timeout_s, run.backend.note);
  run.fabric_lines.insert(run.fabric_lines.end(), verdict.lines.begin(), verdict.lines.end());
  run.transport = std::move(verdict.record);
  run.transport_failed = verdict.failed;
  std::vector<int> pids;
  std::map<std::string, long> cores;
  const auto gpus = gather_gpus(world, run.backend.gpu, timeout_s, &pids, &cores);
  // The collectives' decision (a refusal ended the run in NcclBackend's constructor).
  if (run.backend.nccl) {
    record_nccl_decision(run, nccl_policy::decide("host_collectives", *run.backend.nccl));
  }
  if (world.rank() != 0) return run;
  const auto warnings = oversubscription_warnings(world, cores);
  run.fabric_lines.insert(run.fabric_lines.begin(), warnings.begin(), warnings.end());

  auto& p = run.provenance;
  p.commsweep_version = kVersion;
  p.git_hash = kGitHash;
  p.started_at = utc_now_iso8601();
  p.backend = std::string(run.backend.backend->name());
  p.ranks = world.size();
  p.hosts = world.hosts_by_rank();
  p.gpus = gpus;
  p.driver_version = gpu_driver_version();
  p.cuda_version = cuda_runtime_version();
  p.nccl_version = run.backend.nccl_version;
  p.nccl_headers_version = run.backend.nccl_headers_version;
  p.mpi_version = mpi_library_version();
  p.environment = fabric_environment(envp);
  p.arguments = arguments;
  // "none" in the results (schema); in words on the line a user reads first.
  const bool loaded = run.backend.nccl_version != "none";
  run.version_line = std::string("commsweep version ") + kVersion + " (" + kGitHash + ") backend " +
                     p.backend + " nccl-headers=" +
                     (nccl_backend_built() ? run.backend.nccl_headers_version : "none (built without NCCL)") +
                     " nccl-library=" + (loaded ? run.backend.nccl_version : "not loaded: " + p.backend + " backend");
  for (std::size_t r = 0; r < gpus.size(); ++r) run.device_lines.push_back(device_line(gpus[r], pids[r]));
  return run;
}

}  // namespace commsweep
