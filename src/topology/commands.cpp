#include "topology/commands.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "core/text_file.hpp"
#include "output/output_file.hpp"
#include "topology/generate.hpp"
#include "topology/shape_detect.hpp"
#include "topology/validate.hpp"

namespace commsweep::topology {
namespace {

namespace fs = std::filesystem;

std::string read_input(const std::string& path) {
  try {
    return read_bounded_file(path);
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Usage, e.what());
  }
}

DetectedShape shape_of_node(const std::string& flag) { return detect_shape(stated_shape(flag), {}); }

}  // namespace

int generate_files(const GenerateRequest& request) {
  const std::string& out = request.out;
  std::vector<ShapeDescription> shapes;
  if (!request.shapes.empty()) {
    for (const auto& s : request.shapes) shapes.push_back(load_shape(s, request.descriptions));
  } else {
    shapes = load_all_shapes(request.descriptions);
  }
  // Outside the repository there is no topology/ to compare with: every file would look stale.
  if (request.check && !fs::is_directory(out)) {
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
      if (request.check) {
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
  if (request.check && stale == 0) {
    std::cout << shapes.size() << " shapes: every file in " << out << " up to date\n";
  }
  return stale == 0 ? exit_code::kOk : exit_code::kUsage;
}

int list_shapes(const std::string& descriptions) {
  for (const auto& s : load_all_shapes(descriptions)) {
    std::string nics;
    for (const auto& n : s.nic_names()) nics += (nics.empty() ? "" : ",") + n;
    std::cout << s.shape << ": " << s.gpu.count << " x " << s.gpu.model << "; " << s.net_count() << " RDMA ports ("
              << s.nic.link_layer << ") on " << nics << "; RDMA resource " << s.rdma.resource << " x "
              << s.rdma.count << "\n";
  }
  return exit_code::kOk;
}

int validate_file(const ValidateRequest& request) {
  const DetectedShape shape = shape_of_node(request.shape);
  std::optional<ShapeDescription> description;
  if (shape.known()) {
    description = load_shape(shape.shape, request.descriptions);
    std::cout << "# shape " << shape.shape << " (" << shape.reason << ")\n";
  } else {
    std::cout << "# no shape given (--shape, COMMSWEEP_SHAPE or label): GPU and NIC counts not checked\n";
  }
  ValidateOptions options;
  options.shape = description ? &*description : nullptr;
  options.sysfs_root = request.sysfs_root;
  const auto report = validate_topology(read_input(request.file), options);
  const std::string text = format_report(request.file, report);
  (report.valid() ? std::cout : std::cerr) << text;
  return report.valid() ? exit_code::kOk : exit_code::kUsage;
}

int report_nccl_dump(const std::string& path) {
  ValidateOptions options;
  const auto report = validate_topology(read_input(path), options);
  std::cout << "NCCL wrote its view of this node to " << path << "\n" << format_report(path, report);
  return report.valid() ? exit_code::kOk : exit_code::kRuntime;
}

int print_detected_shape(const std::string& shape) {
  const DetectedShape d = shape_of_node(shape);
  if (!d.known()) {
    std::cerr << "shape unknown: " << d.reason << "\n";
    return exit_code::kUsage;
  }
  std::cout << d.shape << " (" << d.reason << ")\n";
  return exit_code::kOk;
}

}  // namespace commsweep::topology
