// `commsweep env` (offline): export lines for NCCL and UCX that fit this pod's RDMA devices.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "fabric/nccl_env.hpp"
#include "fabric/pod_devices.hpp"
#include "fabric/preflight.hpp"
#include "fabric/rdma_inventory.hpp"
#include "fabric/sysfs.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {
struct EnvOptions {
  std::string sysfs_root, annotations;  // annotations: empty when not given
  bool help = false;
};

settings::Table<EnvOptions> make_env_table() {
  using settings::Given;
  using settings::Value;
  return {"env", {
      settings::entry_of<EnvOptions>(settings::shared::sysfs_root("/", "read /sys and /proc under this folder"),
                                     settings::into(&EnvOptions::sysfs_root)),
      settings::entry_of<EnvOptions>(
          settings::shared::annotations("the downward-API annotations file (default <root>/etc/podinfo/annotations)"),
          settings::into(&EnvOptions::annotations)),
      settings::entry_of<EnvOptions>(settings::shared::help(),
                                     settings::into(&EnvOptions::help)),
  }, nullptr};
}

const settings::Table<EnvOptions>& env_settings() {
  static const settings::Table<EnvOptions> table = make_env_table();
  return table;
}

po::options_description env_flags() { return settings::options_of(env_settings(), "commsweep env flags"); }

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
      << "\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage})
      << "0: printed. 2: bad flags or input, or a user setting names devices the pod lacks (the reason\n"
         "on stderr, nothing on stdout).\n";
  return out.str();
}

}  // namespace

int run_env_command(int argc, char** argv, char** envp) {
  EnvOptions o;
  const settings::Origins given =
      apply_command_flags(env_settings(), o, parse_offline_command_flags(argc, argv, env_flags()), "", "env");
  if (o.help) {
    std::cout << env_help_text();
    return exit_code::kOk;
  }
  const fabric::SysfsRoot root(o.sysfs_root);
  const auto inventory = fabric::read_rdma_inventory(root);
  std::vector<fabric::PodPci> pcis;
  std::string default_iface;
  try {
    const bool given_file = given.given("annotations");
    const std::string path = given_file ? o.annotations : root.path("/etc/podinfo/annotations");
    std::optional<std::string> text;
    try {
      text = given_file ? read_bounded_file(path) : read_text_file(path);  // absent by default: fine
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

}  // namespace commsweep
