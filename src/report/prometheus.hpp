// Prometheus text exposition format 0.0.4, for node-exporter's textfile collector: one HELP and
// TYPE line per metric family, then its samples, label values escaped. Shared by the nightly's
// report (regress/render_prometheus.cpp) and `commsweep nvlink --prometheus`.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace commsweep::report {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class Exposition {
 public:
  // COMMON: the labels every sample carries, first.
  explicit Exposition(PromLabels common) : common_(std::move(common)) {}
  // A gauge family; the samples after it are its own.
  void family(const std::string& name, const std::string& help);
  void sample(const PromLabels& labels, double value);
  std::string text() const { return out_.str(); }

 private:
  PromLabels common_;
  std::string name_;
  std::ostringstream out_;
};

}  // namespace commsweep::report
