// `commsweep topo` (offline): the command adapter: its help, the verbs' flags read and each verb
// called (topology/commands.hpp; `topo dump` is NCCL's own view: topology/nccl/nccl_dump.hpp).
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"
#include "topology/commands.hpp"
#include "topology/nccl/nccl_dump.hpp"

namespace commsweep {
namespace {

namespace po = boost::program_options;

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

// argv[0] the program, argv[1] "topo", argv[2] the verb: its flags (SPECS, whose words' spec the
// words fill), a usage Error naming a bad one; the flags given.
settings::Flags parse_topo_verb(int argc, char** argv, const std::vector<const settings::Spec*>& specs) {
  po::options_description flags;
  settings::describe(flags, specs);
  po::positional_options_description positional;
  settings::describe_words(flags, positional, specs);
  return settings::given_flags(parse_flags(argc, argv, 3, flags, positional, "", " (see commsweep topo --help)"), specs);
}

// The flag's value, or FALLBACK when it was not given.
std::string flag_or(const settings::Flags& given, const char* name, const std::string& fallback = {}) {
  const auto it = given.find(name);
  return it == given.end() ? fallback : settings::read(settings::text(), it->second).text;
}

int generate(int argc, char** argv) {
  settings::Spec shapes_flag = settings::shared::shape();  // here a list: --shape S1 --shape S2
  shapes_flag.type = settings::list_of(shapes_flag.type, false);
  shapes_flag.repeatable = true;
  const settings::Spec descriptions = settings::shared::descriptions(), out_flag = settings::shared::out();
  const settings::Spec check = settings::command_flag("check", settings::presence(), std::nullopt, "");
  const settings::Flags vm = parse_topo_verb(argc, argv, {&shapes_flag, &descriptions, &out_flag, &check});
  topology::GenerateRequest request;
  if (vm.count("shape")) {
    for (const auto& s : settings::read(shapes_flag.type, vm.at("shape")).items) request.shapes.push_back(s.text);
  }
  request.descriptions = flag_or(vm, "descriptions");
  request.out = flag_or(vm, "out", request.out);
  request.check = vm.count("check") > 0;
  return topology::generate_files(request);
}

int shapes(int argc, char** argv) {
  const settings::Spec descriptions = settings::shared::descriptions();
  const auto vm = parse_topo_verb(argc, argv, {&descriptions});
  return topology::list_shapes(flag_or(vm, "descriptions"));
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
  topology::ValidateRequest request;
  request.file = flag_or(vm, "file");
  request.shape = flag_or(vm, "shape");
  request.descriptions = flag_or(vm, "descriptions");
  if (!vm.count("no-node")) request.sysfs_root = flag_or(vm, "sysfs-root", "/");
  return topology::validate_file(request);
}

int dump(int argc, char** argv) {
  const settings::Spec out_flag = settings::shared::out();
  const settings::Flags vm = parse_topo_verb(argc, argv, {&out_flag});
  const std::string out = flag_or(vm, "out", "nccl-topology-dump.xml");
  topology::dump_nccl_topology(out);
  return topology::report_nccl_dump(out);
}

int detect(int argc, char** argv) {
  const settings::Spec shape_flag = settings::shared::shape();
  const settings::Flags vm = parse_topo_verb(argc, argv, {&shape_flag});
  return topology::print_detected_shape(flag_or(vm, "shape"));
}

}  // namespace

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
  if (verb == "generate") return generate(argc, argv);
  if (verb == "validate") return validate(argc, argv);
  if (verb == "dump") return dump(argc, argv);
  if (verb == "shapes") return shapes(argc, argv);
  if (verb == "detect") return detect(argc, argv);
  throw Error(ErrorKind::Usage, "unknown verb '" + verb + "' (generate, validate, dump, shapes, detect; see --help)");
}

}  // namespace commsweep
