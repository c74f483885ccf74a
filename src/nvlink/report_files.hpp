// `commsweep nvlink --html FILE` (a self-contained report: per node a heatmap of the copy-engine
// and of the SM writes, GPU x GPU, coloured by the ratio to the node median, and the findings)
// and `--prometheus FILE` (per pair and test its GB/s and verdict, per GPU its all-to-one and
// one-to-all; report/prometheus.hpp's format).
#pragma once

#include <string>

#include "nvlink/judge.hpp"
#include "nvlink/record.hpp"

namespace commsweep::nvlink {

std::string render_html(const NvlinkRun& run, const Analysis& analysis);
std::string render_prometheus(const NvlinkRun& run, const Analysis& analysis);

}  // namespace commsweep::nvlink
