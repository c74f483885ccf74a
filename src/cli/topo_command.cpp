// `commsweep topo` (offline): help, dispatch, validate, dump, detect (generate, shapes: topo_shapes.cpp).
#include <stdlib.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/topo_command.hpp"
#include "comm/nccl_dump.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"
#include "topology/shape_detect.hpp"
#include "topology/validate.hpp"

namespace commsweep {
namespace {

namespace po = boost::program_options;
using namespace topology;

constexpr const char* kHelp =
    "commsweep topo: NCCL topology files per node shape (offline, no MPI)\n"
    "\n"
    "  commsweep topo generate [--shape S]... [--descriptions DIR] [--out DIR] [--check]\n"
    "      write OUT/S.xml (NCCL_TOPO_FILE) and OUT/S.conf (/etc/nccl.conf) from the shape's\n"
    "      description (DIR/S.json, else the one built in); every known shape when no --shape.\n"
    "      --check writes nothing and fails (exit 2) when a file differs from what it would write.\n"
    "  commsweep topo validate FILE [--shape S] [--descriptions DIR] [--sysfs-root DIR | --no-node]\n"
    "      is FILE well-formed XML (no DOCTYPE, no entities), with the GPUs and NICs of shape S\n"
    "      (--shape, else COMMSWEEP_SHAPE, else the instance-type label), and are its bus ids and\n"
    "      NICs present and its NIC ports active on this node (read under --sysfs-root, default /)?\n"
    "  commsweep topo dump [--out FILE]\n"
    "      what NCCL detects on this node (NCCL_TOPO_DUMP_FILE while a communicator over all GPUs\n"
    "      starts); needs a GPU build and GPUs. Default FILE: nccl-topology-dump.xml\n"
    "  commsweep topo shapes      the known shapes: GPUs, NICs, RDMA resource (the manifests' hints)\n"
    "  commsweep topo detect      which shape this node is, and from where\n"
    "\n"
    "2: bad input or an invalid file (FILE:LINE: reason); 11: a file of generate not written.\n";

// kHelp and the codes of core/exit_codes.hpp's table that topo ends with.
std::string topo_help() {
  return kHelp + exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kRuntime, exit_code::kOutputFailed});
}

std::string read_file(const std::string& path) {
  try {
    return read_bounded_file(path);
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Usage, e.what());
  }
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

std::string shape_for(const settings::Flags& given, std::string* reason) {
  ShapeEvidence e;
  e.flag = flag_or(given, "shape");
  e.env = env_or("COMMSWEEP_SHAPE", "");
  e.labels_file = env_or("COMMSWEEP_LABELS_FILE", kDefaultLabelsFile);
  const auto d = detect_shape(e, {});
  *reason = d.reason;
  return d.shape;
}

int validate(int argc, char** argv) {
  settings::Spec file_word = settings::command_flag("file", settings::text(), std::nullopt, "");
  file_word.words = 1;
  const settings::Spec shape_flag = settings::shared::shape(), descriptions = settings::shared::descriptions(),
                       sysfs_root = settings::shared::sysfs_root(std::nullopt);
  const settings::Spec no_node = settings::command_flag("no-node", settings::presence(), std::nullopt, "");
  const settings::Flags vm = parse_topo_verb(argc, argv, {&file_word, &shape_flag, &descriptions, &sysfs_root, &no_node});
  if (!vm.count("file")) throw Error(ErrorKind::Usage, "validate: give the topology file (commsweep topo validate FILE)");
  if (vm.count("no-node") && vm.count("sysfs-root")) throw Error(ErrorKind::Usage, "--no-node and --sysfs-root exclude each other");
  const std::string file = flag_or(vm, "file");
  std::string reason;
  const std::string shape = shape_for(vm, &reason);
  std::optional<ShapeDescription> description;
  if (!shape.empty()) {
    description = load_shape(shape, flag_or(vm, "descriptions"));
    std::cout << "# shape " << shape << " (" << reason << ")\n";
  } else {
    std::cout << "# no shape given (--shape, COMMSWEEP_SHAPE or label): GPU and NIC counts not checked\n";
  }
  ValidateOptions options;
  options.shape = description ? &*description : nullptr;
  if (!vm.count("no-node")) options.sysfs_root = flag_or(vm, "sysfs-root", "/");
  const auto report = validate_topology(read_file(file), options);
  const std::string text = format_report(file, report);
  (report.valid() ? std::cout : std::cerr) << text;
  return report.valid() ? exit_code::kOk : exit_code::kUsage;
}

int dump(int argc, char** argv) {
  const settings::Spec out_flag = settings::shared::out();
  const settings::Flags vm = parse_topo_verb(argc, argv, {&out_flag});
  const std::string out = flag_or(vm, "out", "nccl-topology-dump.xml");
  dump_nccl_topology(out);
  ValidateOptions options;
  const auto report = validate_topology(read_file(out), options);
  std::cout << "NCCL wrote its view of this node to " << out << "\n" << format_report(out, report);
  return report.valid() ? exit_code::kOk : exit_code::kRuntime;
}

int detect(int argc, char** argv) {
  const settings::Spec shape_flag = settings::shared::shape();
  const settings::Flags vm = parse_topo_verb(argc, argv, {&shape_flag});
  std::string reason;
  const std::string shape = shape_for(vm, &reason);
  if (shape.empty()) {
    std::cerr << "shape unknown: " << reason << "\n";
    return exit_code::kUsage;
  }
  std::cout << shape << " (" << reason << ")\n";
  return exit_code::kOk;
}

}  // namespace

settings::Flags parse_topo_verb(int argc, char** argv, const std::vector<const settings::Spec*>& specs) {
  po::options_description flags;
  settings::describe(flags, specs);
  po::positional_options_description positional;
  settings::describe_words(flags, positional, specs);
  // argv[0] program, argv[1] "topo", argv[2] the verb.
  return settings::given_flags(parse_flags(argc, argv, 3, flags, positional, "", " (see commsweep topo --help)"), specs);
}

std::string flag_or(const settings::Flags& given, const char* name, const std::string& fallback) {
  const auto it = given.find(name);
  return it == given.end() ? fallback : settings::read(settings::text(), it->second).text;
}

int run_topo_command(int argc, char** argv, char**) {
  const std::string verb = argc > 2 ? argv[2] : "";
  if (verb.empty() || verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << topo_help();
    return verb.empty() ? exit_code::kUsage : exit_code::kOk;
  }
  for (int i = 3; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << topo_help();
      return exit_code::kOk;
    }
  }
  if (verb == "generate") return run_topo_generate(argc, argv);
  if (verb == "validate") return validate(argc, argv);
  if (verb == "dump") return dump(argc, argv);
  if (verb == "shapes") return run_topo_shapes(argc, argv);
  if (verb == "detect") return detect(argc, argv);
  throw Error(ErrorKind::Usage, "unknown verb '" + verb + "' (generate, validate, dump, shapes, detect; see --help)");
}

}  // namespace commsweep
