// Which shape is this node? In order: --shape, COMMSWEEP_SHAPE, the node's instance-type label
// that the Job passes down (a downward-API labels file), and last a guess from the GPU model
// and count (and the RDMA NICs, where known), labelled as a guess.
#pragma once

#include <string>
#include <vector>

#include "topology/shape_description.hpp"

namespace commsweep::topology {

constexpr const char* kDefaultLabelsFile = "/etc/podinfo/labels";

enum class ShapeSource { Flag, Env, Label, Guess, None };
const char* name_of(ShapeSource source);

struct GpuSeen {
  std::string model;  // as the driver names it, e.g. "NVIDIA H100 80GB HBM3"
  int count = 0;      // on this node
};

struct ShapeEvidence {
  std::string flag;         // --shape
  std::string env;          // COMMSWEEP_SHAPE
  std::string labels_file;  // e.g. /etc/podinfo/labels; empty: none
  std::vector<GpuSeen> gpus;           // what the world summary knows of this node
  std::vector<std::string> rdma_nics;  // mlx5_N present, where known
};

struct DetectedShape {
  std::string shape;  // empty: unknown
  ShapeSource source = ShapeSource::None;
  std::string reason;  // how it was found, or why not
  bool known() const { return !shape.empty(); }
};

DetectedShape detect_shape(const ShapeEvidence& evidence, const std::vector<ShapeDescription>& shapes);

// The shape as the node states it, before any GPU is seen: FLAG (--shape), COMMSWEEP_SHAPE, and
// the labels file (COMMSWEEP_LABELS_FILE, else kDefaultLabelsFile).
ShapeEvidence stated_shape(const std::string& flag);

// The value of node.kubernetes.io/instance-type (or its beta. and commsweep/shape forms) in a
// downward-API labels file (key="value" lines); empty when absent or unreadable.
std::string instance_type_label(const std::string& labels_file);

}  // namespace commsweep::topology
