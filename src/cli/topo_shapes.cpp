// `commsweep topo generate` and `commsweep topo shapes` (cli/topo_command.hpp): the shapes'
// descriptions listed, and OUT/S.xml and OUT/S.conf written from them (or --check'ed).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/topo_command.hpp"
#include "core/error.hpp"
#include "settings/shared_flags.hpp"
#include "output/output_file.hpp"
#include "topology/generate.hpp"

namespace commsweep {

namespace fs = std::filesystem;
using namespace topology;

int run_topo_generate(int argc, char** argv) {
  settings::Spec shapes_flag = settings::shared::shape();  // here a list: --shape S1 --shape S2
  shapes_flag.type = settings::list_of(shapes_flag.type, false);
  shapes_flag.repeatable = true;
  const settings::Spec descriptions = settings::shared::descriptions(), out_flag = settings::shared::out();
  const settings::Spec check = settings::command_flag("check", settings::presence(), std::nullopt, "");
  const settings::Flags vm = parse_topo_verb(argc, argv, {&shapes_flag, &descriptions, &out_flag, &check});
  const std::string dir = flag_or(vm, "descriptions");
  const std::string out = flag_or(vm, "out", "topology");
  std::vector<ShapeDescription> shapes;
  if (vm.count("shape")) {
    for (const auto& s : settings::read(shapes_flag.type, vm.at("shape")).items) shapes.push_back(load_shape(s.text, dir));
  } else {
    shapes = load_all_shapes(dir);
  }
  // Outside the repository there is no topology/ to compare with: every file would look stale.
  if (vm.count("check") && !fs::is_directory(out)) {
    throw Error(ErrorKind::Usage, "--check: " + out + " (" + fs::absolute(out).lexically_normal().string() +
                                      ") is not a folder, so there is nothing to compare with: run it in the "
                                      "repository's root, or name the generated files' folder with --out DIR");
  }
  int stale = 0;
  for (const auto& s : shapes) {
    const std::pair<std::string, std::string> files[] = {
        {(fs::path(out) / (s.shape + ".xml")).string(), topology_xml(s)},
        {(fs::path(out) / (s.shape + ".conf")).string(), nccl_conf(s, default_topology_path(s.shape))}};
    for (const auto& [path, text] : files) {
      if (vm.count("check")) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream have;
        have << in.rdbuf();
        if (!in || have.str() != text) {
          std::cerr << path << (in ? ": out of date with its description" : ": missing") << " (commsweep topo generate --out "
                    << out << " writes it)\n";
          ++stale;
        }
        continue;
      }
      try {
        fs::create_directories(out);
        output::write_output_file(path, text);
      } catch (const std::exception& e) {
        throw Error(ErrorKind::Output, "--out: " + std::string(e.what()));
      }
      std::cout << "wrote " << path << "\n";
    }
  }
  if (vm.count("check") && stale == 0) {
    std::cout << shapes.size() << " shapes: every file in " << out << " up to date\n";
  }
  return stale == 0 ? exit_code::kOk : exit_code::kUsage;
}

int run_topo_shapes(int argc, char** argv) {
  const settings::Spec descriptions = settings::shared::descriptions();
  const auto vm = parse_topo_verb(argc, argv, {&descriptions});
  for (const auto& s : load_all_shapes(flag_or(vm, "descriptions"))) {
    std::string nics;
    for (const auto& n : s.nic_names()) nics += (nics.empty() ? "" : ",") + n;
    std::cout << s.shape << ": " << s.gpu.count << " x " << s.gpu.model << "; " << s.net_count() << " RDMA ports ("
              << s.nic.link_layer << ") on " << nics << "; RDMA resource " << s.rdma.resource << " x "
              << s.rdma.count << "\n";
  }
  return exit_code::kOk;
}

}  // namespace commsweep
