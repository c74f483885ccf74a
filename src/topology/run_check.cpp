#include "topology/run_check.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text_file.hpp"
#include "topology/validate.hpp"

namespace commsweep::topology {
namespace {

std::string first_problems(const ValidationReport& r, const std::string& file) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& p : r.problems) {
    if (shown++ == 3) {
      out += "; and " + std::to_string(r.problems.size() - 3) + " more (commsweep topo validate " + file + ")";
      break;
    }
    out += (out.empty() ? "" : "; ") + (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.reason;
  }
  return out;
}

}  // namespace

TopologyRunCheck check_topology_for_run(const TopologyRunInput& in) {
  TopologyRunCheck c;
  const bool user = !in.user_topo_file.empty();
  c.file = user ? in.user_topo_file : (std::filesystem::path(in.mount_dir) / (in.shape + ".xml")).string();
  const std::string origin = user ? "NCCL_TOPO_FILE as set by the user" : "the ConfigMap mount";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(c.file, ec)) {
    if (user && !in.force) {
      c.verdict = TopologyVerdict::Refuse;
      c.message = "NCCL_TOPO_FILE=" + c.file + " does not exist (unset it, fix the path, or --force)";
      return c;
    }
    c.verdict = TopologyVerdict::Skip;
    c.message = "topology: no file at " + c.file + " (" + origin + "; shape " + in.shape +
                "): NCCL detects the topology itself";
    return c;
  }
  const auto text = read_text_file(c.file);
  const bool ok = text.has_value();
  ValidateOptions options;
  options.shape = in.description;
  options.sysfs_root = in.sysfs_root;
  const auto report = validate_topology(text.value_or(""), options);
  if (!ok || !report.valid()) {
    const std::string why = ok ? first_problems(report, c.file) : "cannot read it";
    if (!in.force) {
      c.verdict = TopologyVerdict::Refuse;
      c.message = "topology file " + c.file + " (" + origin + ", shape " + in.shape + ") does not match this node: " +
                  why + ". Fix the file or the shape, unset NCCL_TOPO_FILE, or run with --force";
      return c;
    }
    c.verdict = TopologyVerdict::Use;
    c.set_env = !user;
    c.message = "topology: NCCL_TOPO_FILE=" + c.file + " (" + origin + ") used despite --force although it does not match this node: " + why;
    return c;
  }
  c.verdict = TopologyVerdict::Use;
  c.set_env = !user;
  c.message = "topology: NCCL_TOPO_FILE=" + c.file + " (" + origin + ", shape " + in.shape + "): " +
              std::to_string(report.facts.gpus.size()) + " GPUs and " + std::to_string(report.facts.nic_names().size()) +
              " NICs, all present on this node";
  return c;
}

}  // namespace commsweep::topology
