#include "topology/shape_detect.hpp"

#include <algorithm>
#include <fstream>

#include "core/strings.hpp"

namespace commsweep::topology {
namespace {

// Downward API: key="value" with the value quoted as a Go string; shapes need no escapes.
std::string unquote(std::string v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

bool gpu_matches(const ShapeDescription& s, const GpuSeen& g) {
  if (g.count != s.gpu.count) return false;
  return std::all_of(s.gpu.name_contains.begin(), s.gpu.name_contains.end(),
                     [&](const std::string& token) { return g.model.find(token) != std::string::npos; });
}

bool nics_match(const ShapeDescription& s, const std::vector<std::string>& present) {
  const auto wanted = s.nic_names();
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& n) {
    return std::find(present.begin(), present.end(), n) != present.end();
  });
}

std::string describe(const std::vector<GpuSeen>& gpus) {
  std::string out;
  for (const auto& g : gpus) out += (out.empty() ? "" : " + ") + std::to_string(g.count) + " x " + g.model;
  return out.empty() ? "no GPUs" : out;
}

DetectedShape guess(const ShapeEvidence& e, const std::vector<ShapeDescription>& shapes) {
  DetectedShape d;
  if (e.gpus.size() != 1) {
    d.reason = "no --shape, COMMSWEEP_SHAPE or instance-type label, and " + describe(e.gpus) +
               " matches no shape by GPU model and count";
    return d;
  }
  std::vector<const ShapeDescription*> candidates;
  for (const auto& s : shapes) {
    if (gpu_matches(s, e.gpus[0])) candidates.push_back(&s);
  }
  if (candidates.size() > 1 && !e.rdma_nics.empty()) {
    std::vector<const ShapeDescription*> by_nic;
    for (const auto* s : candidates) {
      if (nics_match(*s, e.rdma_nics)) by_nic.push_back(s);
    }
    if (!by_nic.empty()) candidates = by_nic;
  }
  if (candidates.size() == 1) {
    d.shape = candidates[0]->shape;
    d.source = ShapeSource::Guess;
    d.reason = "a guess from " + describe(e.gpus) + " (set --shape or COMMSWEEP_SHAPE to be sure)";
    return d;
  }
  std::string names;
  for (const auto* s : candidates) names += (names.empty() ? "" : ", ") + s->shape;
  d.reason = describe(e.gpus) + (candidates.empty() ? " matches no known shape" : " fits several shapes (" + names + ")") +
             ": set --shape or COMMSWEEP_SHAPE";
  return d;
}

}  // namespace

const char* name_of(ShapeSource source) {
  switch (source) {
    case ShapeSource::Flag: return "--shape";
    case ShapeSource::Env: return "COMMSWEEP_SHAPE";
    case ShapeSource::Label: return "node label";
    case ShapeSource::Guess: return "guess";
    case ShapeSource::None: return "none";
  }
  return "none";
}

std::string instance_type_label(const std::string& labels_file) {
  if (labels_file.empty()) return {};
  std::ifstream in(labels_file);
  std::string line;
  std::string found;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = unquote(line.substr(eq + 1));
    if (key == "commsweep/shape") return value;  // an explicit label wins
    if (key == "node.kubernetes.io/instance-type" || (key == "beta.kubernetes.io/instance-type" && found.empty())) {
      found = value;
    }
  }
  return found;
}

ShapeEvidence stated_shape(const std::string& flag) {
  ShapeEvidence e;
  e.flag = flag;
  e.env = env_or("COMMSWEEP_SHAPE", "");
  e.labels_file = env_or("COMMSWEEP_LABELS_FILE", kDefaultLabelsFile);
  return e;
}

DetectedShape detect_shape(const ShapeEvidence& e, const std::vector<ShapeDescription>& shapes) {
  if (!e.flag.empty()) return {e.flag, ShapeSource::Flag, "--shape " + e.flag};
  if (!e.env.empty()) return {e.env, ShapeSource::Env, "COMMSWEEP_SHAPE=" + e.env};
  const std::string label = instance_type_label(e.labels_file);
  if (!label.empty()) return {label, ShapeSource::Label, "instance-type label " + label + " in " + e.labels_file};
  return guess(e, shapes);
}

}  // namespace commsweep::topology
