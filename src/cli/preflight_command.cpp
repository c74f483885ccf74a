// `commsweep preflight` (every rank): every node's RDMA, SR-IOV, host and locality checked, one
// table on rank 0 (the gathering is run/preflight_gather.hpp's, which the measuring runs share).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "fabric/preflight.hpp"
#include "fabric/preflight_table.hpp"
#include "output/output_file.hpp"
#include "run/health_gather.hpp"
#include "run/preflight_gather.hpp"
#include "run/rank_binding.hpp"
#include "run/run_setup.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

po::options_description preflight_flags() {
  po::options_description d("commsweep preflight flags");
  d.add_options()
      ("sysfs-root", po::value<std::string>()->default_value("/"), "read /sys, /proc and /dev/shm under this folder (tests point it at fixture trees)")
      ("annotations", po::value<std::string>(), "the pod's downward-API annotations file (default <root>/etc/podinfo/annotations, where Multus's network-status is)")
      ("json", po::value<std::string>(), "also write every host's checks and RDMA devices to this file (atomically)")
      ("bind", po::value<std::string>()->default_value("none"), "auto: bind each rank to the NUMA node of its GPU (local rank modulo the GPUs); none")
      ("timeout,T", po::value<double>()->default_value(60), "seconds the gathers may take")
      ("help,h", "show this help");
  return d;
}

// --bind as the measuring commands take it (run/rank_binding.hpp); local rank 0's result is
// its host's "bind" row.
std::string bind_note(const std::string& mode, int local_rank) {
  if (mode != "auto" && mode != "none") throw_usage("preflight: --bind must be auto or none, not '" + mode + "'");
  const std::string done = bind_rank(mode == "auto" ? BindMode::Auto : BindMode::None, local_rank);
  return done.empty() ? "" : "--bind auto, local rank 0: " + done;
}

std::string preflight_help_text() {
  std::ostringstream out;
  out << "Usage: mpirun -np N commsweep preflight [flags]\n\n"
         "Checks every node of the job before a run: RDMA devices and ports (state, link layer,\n"
         "MTU, speed, GIDs and the NCCL_IB_GID_INDEX to use), SR-IOV devices given to the pod\n"
         "(PCIDEVICE_* and Multus network-status) and the NCCL/UCX settings that fit them, the\n"
         "memlock limit, CAP_IPC_LOCK, the IOMMU mode, GPUDirect RDMA, /dev/shm, PCIe ACS,\n"
         "GPU/NIC locality (hwloc) and UCX. One rank per host checks; rank 0 prints a row per\n"
         "host and check: PASS, WARN or FAIL, the reason, and the fix; then each host's GPU/NIC\n"
         "matrix as nvidia-smi topo -m draws it (X self, PIX one PCIe bridge, PXB several, PHB a\n"
         "host bridge, NODE within a NUMA node, SYS across NUMA nodes), also in --json\n"
         "(\"locality\"). A WARN when NCCL_IB_HCA lists first a NIC that is not nearest a GPU.\n"
         "A --sysfs-root tree may hold hwloc.xml (lstopo --of xml) for the matrix.\n\n"
      << preflight_flags()
      << "\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kHealthFail, exit_code::kOutputFailed})
      << "0: no FAIL (WARNs allowed). 6: at least one check FAILed. 11: --json not written.\n"
         "Sweeps run a brief preflight first (a summary line and the FAIL rows; --no-preflight).\n";
  return out.str();
}

}  // namespace

int run_preflight_command(World& world, int argc, char** argv, char** envp) {
  const auto vm = parse_command_flags(argc, argv, preflight_flags());
  if (vm.count("help")) {
    if (world.rank() == 0) std::cout << preflight_help_text();
    return exit_code::kOk;
  }
  fabric::PreflightOptions options;
  options.sysfs_root = vm["sysfs-root"].as<std::string>();
  if (vm.count("annotations")) options.annotations = vm["annotations"].as<std::string>();
  const double timeout = vm["timeout"].as<double>();
  // A root that is not there reads nothing, and nothing read would pass.
  require_sysfs_root(world, options.sysfs_root, "preflight: --sysfs-root " + options.sysfs_root, timeout);
  if (vm.count("json")) require_writable_results(world, vm["json"].as<std::string>(), timeout);
  const auto nodes = gather_preflight(world, options, envp, timeout, bind_note(vm["bind"].as<std::string>(), world.local_rank()));
  int code = exit_code::kOk;
  if (world.rank() == 0) {
    std::cout << fabric::render_preflight_table(nodes) << std::flush;
    if (fabric::tally(nodes).fail) code = exit_code::kHealthFail;
    if (vm.count("json")) {
      try {
        output::write_output_file(vm["json"].as<std::string>(), fabric::preflight_json(nodes).dump(2) + "\n");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "commsweep preflight: --json: %s\n", e.what());
        code = combined_exit(code, exit_code::kOutputFailed);
      }
    }
  }
  return broadcast_preflight_verdict(world, code, timeout);
}

}  // namespace commsweep
