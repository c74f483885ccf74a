#include "topology/run/run_topology.hpp"

#include <stdlib.h>

#include <cctype>
#include <optional>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "runtime/world.hpp"
#include "topology/run_check.hpp"
#include "topology/shape_detect.hpp"

namespace commsweep {
namespace {

// A shape names a file (<mount>/<shape>.xml, <descriptions>/<shape>.json): it must be a name
// as a Kubernetes label value is (what the instance-type label holds), never a path such as
// "../../tmp/x", which would point NCCL_TOPO_FILE anywhere.
bool valid_shape_name(const std::string& shape) {
  if (shape.size() > 63) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(shape[i]);
    const bool edge = i == 0 || i + 1 == shape.size();
    if (!std::isalnum(c) && (edge || (c != '-' && c != '_' && c != '.'))) return false;
  }
  return true;
}

// This node's verdict: "U|note" (use, set NCCL_TOPO_FILE), "K|note" (keep or skip), "R|reason".
std::string node_verdict(const std::string& shape, const std::string& reason, bool force) {
  if (!valid_shape_name(shape)) {
    return "R|shape '" + shape + "' (" + reason + ") is not a shape name: letters, digits, '-', '_' and '.'" +
           " (at most 63, starting and ending with a letter or digit), e.g. BM.GPU.H100.8";
  }
  using namespace topology;
  std::optional<ShapeDescription> description;
  try {
    description = load_shape(shape, env_or("COMMSWEEP_SHAPES_DIR", ""));
  } catch (const Error&) {
    // A shape without a description (a label of some other node type) checks the file alone.
  }
  TopologyRunInput in;
  in.shape = shape;
  in.user_topo_file = env_or("NCCL_TOPO_FILE", "");
  in.mount_dir = env_or("COMMSWEEP_TOPOLOGY_DIR", in.mount_dir);
  in.sysfs_root = env_or("COMMSWEEP_SYSFS_ROOT", "/");
  in.force = force;
  in.description = description ? &*description : nullptr;
  const auto c = check_topology_for_run(in);
  if (c.verdict == TopologyVerdict::Refuse) return "R|" + c.message;
  if (c.verdict == TopologyVerdict::Use && c.set_env) {
    setenv("NCCL_TOPO_FILE", c.file.c_str(), 1);
    return "U|" + c.message;
  }
  return "K|" + c.message;
}

}  // namespace

std::string prepare_topology(World& world, const TopologyRequest& request, double timeout_s) {
  using namespace topology;
  // No GPU guess here: before the backend starts, only a stated shape counts.
  const DetectedShape shape = detect_shape(stated_shape(request.shape), {});
  // Every rank takes part in the exchange below, so that none waits alone: a rank without a
  // shape (no label on its node) says so.
  const std::string mine = shape.known() ? node_verdict(shape.shape, shape.reason, request.force) : "K|";
  const Phase phase{"topology check at start", Deadline::after(timeout_s)};
  const auto all = world.gather(mine, phase);
  std::string refusal;
  if (world.rank() == 0) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r].rfind("R|", 0) != 0) continue;
      refusal += (refusal.empty() ? "" : "\n") + std::string("rank ") + std::to_string(r) + " (" +
                 world.hosts_by_rank()[r] + "): " + all[r].substr(2);
    }
  }
  int length = static_cast<int>(refusal.size());
  world.broadcast(&length, sizeof(length), 0, phase);
  refusal.resize(static_cast<std::size_t>(length));
  if (length > 0) world.broadcast(refusal.data(), length, 0, phase);
  if (!refusal.empty()) throw Error(ErrorKind::Usage, refusal);
  if (!shape.known()) return {};
  return "shape " + shape.shape + " (" + shape.reason + "); " + mine.substr(2);
}

}  // namespace commsweep
