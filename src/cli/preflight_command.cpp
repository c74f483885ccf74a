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
#include "judge/outcomes.hpp"
#include "output/output_file.hpp"
#include "run/health_gather.hpp"
#include "run/preflight_gather.hpp"
#include "run/rank_binding.hpp"
#include "run/run_setup.hpp"
#include "runtime/world.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

struct PreflightFlags {
  std::string sysfs_root, annotations, json, bind;  // annotations, json: empty when not given
  double timeout_s = 60;
  bool help = false;
};

settings::Table<PreflightFlags> make_preflight_table() {
  using settings::Given;
  using settings::Value;
  using O = PreflightFlags;
  return {"preflight", {
      settings::entry_of<O>(settings::shared::sysfs_root("/", "read /sys, /proc and /dev/shm under this folder (tests "
                                                             "point it at fixture trees)"),
                            settings::into(&O::sysfs_root)),
      settings::entry_of<O>(settings::shared::annotations("the pod's downward-API annotations file (default "
                                                          "<root>/etc/podinfo/annotations, where Multus's "
                                                          "network-status is)"),
                            settings::into(&O::annotations)),
      settings::entry_of<O>(
          settings::shared::json("also write every host's checks and RDMA devices to this file (atomically)"),
          settings::into(&O::json)),
      settings::entry_of<O>(settings::shared::bind("auto: bind each rank to the NUMA node of its GPU (local rank "
                                                   "modulo the GPUs); none"),
                            settings::into(&O::bind)),
      settings::entry_of<O>(settings::shared::timeout("60", "seconds the gathers may take"),
                            [](O& o, const Value& v, const Given&) { o.timeout_s = static_cast<double>(v.whole); }),
      settings::entry_of<O>(settings::shared::help(), settings::into(&O::help)),
  }, nullptr};
}

const settings::Table<PreflightFlags>& preflight_settings() {
  static const settings::Table<PreflightFlags> table = make_preflight_table();
  return table;
}

po::options_description preflight_flags() {
  return settings::options_of(preflight_settings(), "commsweep preflight flags");
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
  PreflightFlags o;
  const settings::Origins given =
      apply_command_flags(preflight_settings(), o, parse_command_flags(argc, argv, preflight_flags()), "preflight: ",
                          "preflight");
  if (o.help) {
    if (world.rank() == 0) std::cout << preflight_help_text();
    return exit_code::kOk;
  }
  fabric::PreflightOptions options;
  options.sysfs_root = o.sysfs_root;
  if (given.given("annotations")) options.annotations = o.annotations;
  const double timeout = o.timeout_s;
  const bool json = given.given("json");
  // A root that is not there reads nothing, and nothing read would pass.
  require_sysfs_root(world, options.sysfs_root, "preflight: --sysfs-root " + options.sysfs_root, timeout);
  if (json) require_writable_results(world, o.json, timeout);
  const auto nodes = gather_preflight(world, options, envp, timeout, bind_note(o.bind, world.local_rank()));
  judge::Outcomes outcomes;
  if (world.rank() == 0) {
    std::cout << fabric::render_preflight_table(nodes) << std::flush;
    outcomes.health_fail = fabric::tally(nodes).fail != 0;
    if (json) {
      try {
        output::write_output_file(o.json, fabric::preflight_json(nodes).dump(2) + "\n");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "commsweep preflight: --json: %s\n", e.what());
        outcomes.output_failed = true;
      }
    }
  }
  return broadcast_preflight_verdict(world, judge::exit_code_of(outcomes), timeout);
}

}  // namespace commsweep
