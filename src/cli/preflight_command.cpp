#include "cli/fabric_commands.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/flags.hpp"
#include "run/rank_binding.hpp"
#include "run/run_setup.hpp"
#include "core/text_file.hpp"
#include "run/preflight_gather.hpp"
#include "fabric/locality.hpp"
#include "fabric/nccl_env.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/pod_devices.hpp"
#include "fabric/preflight.hpp"
#include "fabric/preflight_table.hpp"
#include "output/output_file.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

// argv[2...]: the command's own flags. A bad flag is a usage Error naming it.
po::variables_map parse(int argc, char** argv, const po::options_description& flags,
                        const po::positional_options_description* positional = nullptr) {
  const std::string command = argv[1];
  return parse_flags(argc, argv, 2, flags, positional ? *positional : po::positional_options_description(),
                     command + ": ", " (commsweep " + command + " --help)");
}

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

// --bind as the measuring commands take it (cli/rank_binding.hpp); local rank 0's result is
// its host's "bind" row.
std::string bind_note(const std::string& mode, int local_rank) {
  if (mode != "auto" && mode != "none") throw_usage("preflight: --bind must be auto or none, not '" + mode + "'");
  const std::string done = bind_rank(mode == "auto" ? BindMode::Auto : BindMode::None, local_rank);
  return done.empty() ? "" : "--bind auto, local rank 0: " + done;
}

}  // namespace

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
      << "\nExit codes: 0 no FAIL (WARNs allowed), 2 bad flags, 6 at least one check FAILed.\n"
         "Sweeps run a brief preflight first (a summary line and the FAIL rows; --no-preflight).\n";
  return out.str();
}

int run_preflight_command(World& world, int argc, char** argv, char** envp) {
  const auto vm = parse(argc, argv, preflight_flags());
  if (vm.count("help")) {
    if (world.rank() == 0) std::cout << preflight_help_text();
    return exit_code::kOk;
  }
  fabric::PreflightOptions options;
  options.sysfs_root = vm["sysfs-root"].as<std::string>();
  if (vm.count("annotations")) options.annotations = vm["annotations"].as<std::string>();
  const double timeout = vm["timeout"].as<double>();
  if (vm.count("json")) require_writable_results(world, vm["json"].as<std::string>(), timeout);
  const auto nodes = gather_preflight(world, options, envp, timeout, bind_note(vm["bind"].as<std::string>(), world.local_rank()));
  int code = exit_code::kOk;
  if (world.rank() == 0) {
    std::cout << fabric::render_preflight_table(nodes) << std::flush;
    if (fabric::tally(nodes).fail) code = exit_code::kPreflightFailed;
    if (vm.count("json")) {
      try {
        output::write_output_file(vm["json"].as<std::string>(), fabric::preflight_json(nodes).dump(2) + "\n");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "commsweep preflight: --json: %s\n", e.what());
        code = exit_code::kUsage;
      }
    }
  }
  return broadcast_preflight_verdict(world, code, timeout);
}

// ---- commsweep env ----

namespace {
po::options_description env_flags() {
  po::options_description d("commsweep env flags");
  d.add_options()
      ("sysfs-root", po::value<std::string>()->default_value("/"), "read /sys and /proc under this folder")
      ("annotations", po::value<std::string>(), "the downward-API annotations file (default <root>/etc/podinfo/annotations)")
      ("help,h", "show this help");
  return d;
}

}  // namespace

std::string env_help_text() {
  std::ostringstream out;
  out << "Usage: eval \"$(commsweep env)\"\n\n"
         "Prints export lines for the NCCL and UCX settings that fit this pod's RDMA devices:\n"
         "the PCI addresses in the SR-IOV device plugin's PCIDEVICE_* variables (comma lists or\n"
         "JSON) and in Multus's network-status annotation, mapped to RDMA devices through sysfs\n"
         "(without either, every RDMA device of the node):\n"
         "  NCCL_IB_HCA='=mlx5_3,mlx5_4'   exact names ('=': mlx5_1 alone would match mlx5_10..)\n"
         "  UCX_NET_DEVICES='mlx5_3:1,mlx5_4:1'\n"
         "  NCCL_IB_GID_INDEX='3'          RoCE only: the RoCE v2 GID with an IPv4 address\n"
         "  NCCL_SOCKET_IFNAME='=eth0'     the pod's default interface\n"
         "Values are single-quoted for the shell. A setting already in the environment that fits\n"
         "is kept; one that names devices the pod does not have is a FAIL.\n\n"
      << env_flags()
      << "\nExit codes: 0 printed, 2 bad flags or input, or a user setting names devices the pod lacks\n"
         "(the reason on stderr, nothing on stdout).\n";
  return out.str();
}

int run_env_command(int argc, char** argv, char** envp) {
  const auto vm = parse(argc, argv, env_flags());
  if (vm.count("help")) {
    std::cout << env_help_text();
    return exit_code::kOk;
  }
  const fabric::SysfsRoot root(vm["sysfs-root"].as<std::string>());
  const auto inventory = fabric::read_rdma_inventory(root);
  std::vector<fabric::PodPci> pcis;
  std::string default_iface;
  try {
    const bool given = vm.count("annotations") > 0;
    const std::string path = given ? vm["annotations"].as<std::string>() : root.path("/etc/podinfo/annotations");
    std::optional<std::string> text;
    try {
      text = given ? read_bounded_file(path) : read_text_file(path);  // absent by default: fine
    } catch (const std::runtime_error& e) {
      throw_usage(std::string("--annotations ") + e.what());
    }
    pcis = fabric::pod_pci_addresses(envp, text, &default_iface);
  } catch (const fabric::PodDeviceError& e) {
    throw_usage(e.what());
  }
  const auto pod = pcis.empty() ? fabric::all_ports(inventory) : fabric::map_to_rdma(pcis, inventory);
  if (default_iface.empty()) default_iface = fabric::default_route_interface(root);
  const auto advice = fabric::advise_environment(pod, default_iface, root.list("/sys/class/net"),
                                                 fabric::fabric_environment(envp));
  if (!advice.failures.empty()) {
    for (const auto& f : advice.failures) std::fprintf(stderr, "commsweep env: FAIL: %s\n", f.c_str());
    return exit_code::kUsage;
  }
  std::cout << fabric::render_exports(advice);
  return exit_code::kOk;
}

// ---- commsweep transport ----

namespace {
po::options_description transport_flags() {
  po::options_description d("commsweep transport flags");
  d.add_options()
      ("log", po::value<std::vector<std::string>>()->multitoken(), "NCCL log files (NCCL_DEBUG=INFO NCCL_DEBUG_FILE=DIR/nccl.%h.%p)")
      ("require-transport", po::value<std::string>()->default_value("any"), "ib, roce, socket, nvlink or any: any other transport is a FAIL")
      ("require-gdr", "a network connection without GPUDirect RDMA is a FAIL")
      ("help,h", "show this help");
  return d;
}
}  // namespace

std::string transport_help_text() {
  std::ostringstream out;
  out << "Usage: commsweep transport [--require-transport ib|roce|socket|nvlink] [--require-gdr] LOG...\n\n"
         "Reads NCCL's own INFO lines (a run with NCCL_DEBUG=INFO and NCCL_DEBUG_FILE=DIR/nccl.%h.%p)\n"
         "and prints per rank: the network NCCL used (IB or Socket), its HCAs and ports, RoCE or IB,\n"
         "GPUDirect RDMA on or off (and DMA-BUF), the channels, and the transport to each peer\n"
         "(P2P = NVLink or PCIe peer-to-peer, SHM, NET/IB, NET/Socket).\n\n"
      << transport_flags()
      << "\nExit codes: 0 every rank meets the requirements, 2 bad flags, an unreadable log or logs\n"
         "without an NCCL INFO line naming a rank (NCCL_DEBUG=INFO was not set),\n"
         "6 a rank used another transport or no GPUDirect RDMA (each reason on stderr).\n";
  return out.str();
}

int run_transport_command(int argc, char** argv, char** /*envp*/) {
  po::positional_options_description positional;
  positional.add("log", -1);
  const auto vm = parse(argc, argv, transport_flags(), &positional);
  if (vm.count("help")) {
    std::cout << transport_help_text();
    return exit_code::kOk;
  }
  fabric::RequiredTransport required;
  try {
    required = fabric::parse_required_transport(vm["require-transport"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw_usage(std::string("--require-transport: ") + e.what());
  }
  if (!vm.count("log")) throw_usage("no log file given (commsweep transport --help)");
  std::vector<fabric::RankTransport> ranks;
  const auto logs = vm["log"].as<std::vector<std::string>>();
  for (const auto& path : logs) {
    std::istringstream in;
    try {
      in.str(read_bounded_file(path));
    } catch (const std::runtime_error& e) {
      throw_usage(std::string("log file ") + e.what());
    }
    auto some = fabric::parse_nccl_log(in);
    ranks.insert(ranks.end(), some.begin(), some.end());
  }
  // Not an NCCL log at all (a wrong file, NCCL_DEBUG unset): bad input, not an empty verdict.
  if (ranks.empty()) {
    std::string names;
    for (const auto& path : logs) names += (names.empty() ? "" : ", ") + path;
    throw_usage("no NCCL INFO line naming a rank in " + names +
                ": was NCCL_DEBUG=INFO set for the run?");
  }
  ranks = fabric::merge_ranks(std::move(ranks));
  std::cout << fabric::render_transport(ranks);
  const auto problems = fabric::judge_transport(ranks, required, vm.count("require-gdr") > 0);
  for (const auto& p : problems) std::fprintf(stderr, "commsweep transport: FAIL: %s\n", p.c_str());
  return problems.empty() ? exit_code::kOk : exit_code::kPreflightFailed;
}

}  // namespace commsweep
