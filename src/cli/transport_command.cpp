// `commsweep transport` (offline): NCCL's INFO logs read back, --require-* verdicts.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/transport_report.hpp"

namespace commsweep {

namespace po = boost::program_options;

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

std::string transport_help_text() {
  std::ostringstream out;
  out << "Usage: commsweep transport [--require-transport ib|roce|socket|nvlink] [--require-gdr] LOG...\n\n"
         "Reads NCCL's own INFO lines (a run with NCCL_DEBUG=INFO and NCCL_DEBUG_FILE=DIR/nccl.%h.%p)\n"
         "and prints per rank: the network NCCL used (IB or Socket), its HCAs and ports, RoCE or IB,\n"
         "GPUDirect RDMA on or off (and DMA-BUF), the channels, and the transport to each peer\n"
         "(P2P = NVLink or PCIe peer-to-peer, SHM, NET/IB, NET/Socket).\n\n"
      << transport_flags()
      << "\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kHealthFail})
      << "0: every rank meets the requirements. 2: bad flags, an unreadable log or logs without an\n"
         "NCCL INFO line naming a rank (NCCL_DEBUG=INFO was not set). 6: a rank used another\n"
         "transport or no GPUDirect RDMA (each reason on stderr).\n";
  return out.str();
}

}  // namespace

int run_transport_command(int argc, char** argv, char** /*envp*/) {
  po::positional_options_description positional;
  positional.add("log", -1);
  const auto vm = parse_offline_command_flags(argc, argv, transport_flags(), &positional);
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
  return problems.empty() ? exit_code::kOk : exit_code::kHealthFail;
}

}  // namespace commsweep
