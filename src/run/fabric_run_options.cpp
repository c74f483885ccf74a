#include "run/fabric_run_options.hpp"

#include <boost/program_options.hpp>
#include <stdexcept>

#include "core/error.hpp"

namespace commsweep {

namespace po = boost::program_options;

po::options_description fabric_run_flags() {
  po::options_description d("Fabric (commsweep preflight --help, commsweep transport --help)");
  d.add_options()
      ("no-preflight", "skip the brief fabric preflight before the run (commsweep preflight)")
      ("require-transport", po::value<std::string>(), "ib, roce, socket or nvlink: NCCL must use it (its own INFO lines say, read after set-up); anything else stops the run before measuring, exit code 6 (nccl backend only: with mpi a usage error)")
      ("require-gdr", "NCCL's network connections must use GPUDirect RDMA, else exit code 6 before measuring (nccl backend only: with mpi a usage error)")
      ("bind", po::value<std::string>()->default_value("none"), "auto: bind each rank to the CPUs of its GPU's NUMA node (hwloc); none: leave the binding to the launcher");
  return d;
}

std::string transport_needs_nccl(const FabricRunOptions& o, const std::string& why_mpi) {
  const std::string flag = o.required != fabric::RequiredTransport::Any ? "--require-transport" : "--require-gdr";
  return flag + ": the mpi backend makes no NCCL connections to verify (" + why_mpi +
         "); run on GPU nodes with --backend nccl, or drop " + flag;
}

FabricRunOptions parse_fabric_run_flags(const po::variables_map& vm, bool backend_is_mpi) {
  FabricRunOptions o;
  o.preflight = vm.count("no-preflight") == 0;
  if (vm.count("require-transport")) {
    const std::string text = vm["require-transport"].as<std::string>();
    try {
      o.required = fabric::parse_required_transport(text);
    } catch (const std::invalid_argument&) {
      throw_usage("--require-transport: '" + text + "' is not ib, roce, socket or nvlink");
    }
  }
  o.require_gdr = vm.count("require-gdr") > 0;
  const std::string bind = vm["bind"].as<std::string>();
  if (bind == "auto") {
    o.bind = BindMode::Auto;
  } else if (bind != "none") {
    throw_usage("--bind: '" + bind + "' is not auto or none");
  }
  if (backend_is_mpi && o.requires_transport()) throw_usage(transport_needs_nccl(o, "--backend mpi"));
  return o;
}

}  // namespace commsweep
