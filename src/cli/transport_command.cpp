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
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {
struct TransportOptions {
  std::vector<std::string> logs;
  std::string require_transport;
  bool require_gdr = false, help = false;
};

settings::Table<TransportOptions> make_transport_table() {
  using settings::Given;
  using settings::Value;
  using O = TransportOptions;
  // The log files: after --log, or the words.
  settings::Spec log = settings::command_flag("log", settings::list_of(settings::text(), false), std::nullopt,
                                              "NCCL log files (NCCL_DEBUG=INFO NCCL_DEBUG_FILE=DIR/nccl.%h.%p)");
  log.multitoken = true;
  log.words = -1;
  return {"transport", {
      settings::entry_of<O>(log, [](O& o, const Value& v, const Given&) {
        for (const auto& item : v.items) o.logs.push_back(item.text);
      }),
      settings::entry_of<O>(settings::shared::require_transport(
                                "any", "ib, roce, socket, nvlink or any: any other transport is a FAIL"),
                            settings::into(&O::require_transport)),
      settings::entry_of<O>(settings::shared::require_gdr("a network connection without GPUDirect RDMA is a FAIL"),
                            settings::into(&O::require_gdr)),
      settings::entry_of<O>(settings::shared::help(), settings::into(&O::help)),
  }, nullptr};
}

const settings::Table<TransportOptions>& transport_settings() {
  static const settings::Table<TransportOptions> table = make_transport_table();
  return table;
}

po::options_description transport_flags() {
  return settings::options_of(transport_settings(), "commsweep transport flags");
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
  po::options_description flags = transport_flags();
  po::positional_options_description positional;
  settings::describe_words(flags, positional, transport_settings().specs());
  TransportOptions o;
  apply_command_flags(transport_settings(), o, parse_offline_command_flags(argc, argv, flags, &positional), "",
                      "transport");
  if (o.help) {
    std::cout << transport_help_text();
    return exit_code::kOk;
  }
  fabric::RequiredTransport required;
  try {
    required = fabric::parse_required_transport(o.require_transport);
  } catch (const std::invalid_argument& e) {
    throw_usage(std::string("--require-transport: ") + e.what());
  }
  if (o.logs.empty()) throw_usage("no log file given (commsweep transport --help)");
  std::vector<fabric::RankTransport> ranks;
  const auto& logs = o.logs;
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
  const auto problems = fabric::judge_transport(ranks, required, o.require_gdr);
  for (const auto& p : problems) std::fprintf(stderr, "commsweep transport: FAIL: %s\n", p.c_str());
  return problems.empty() ? exit_code::kOk : exit_code::kHealthFail;
}

}  // namespace commsweep
