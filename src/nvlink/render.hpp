// The text of `commsweep nvlink` (rank 0 prints it): per node its GPUs and a matrix of GB/s by
// copy engine and by SM (src rows, dst columns), the medians and the topology's rate,
// all-to-one and one-to-all per GPU, and each slow pair named with both GPUs and their NVLink
// counters over the run; a nodes x pairs summary line per node when there are several. Matrix
// rows are the only lines without '#'.
#pragma once

#include <string>

#include "nvlink/judge.hpp"
#include "nvlink/record.hpp"

namespace commsweep::nvlink {

// Above this many nodes, only the nodes with a finding show their matrices; the summary has
// every node (one line each).
inline constexpr std::size_t kMatricesShown = 4;

// What is measured and how, before the first node's results.
std::string render_header(const RunConfig& settings, std::size_t nodes, std::size_t gpus);
// Every node (or the summary and the nodes with findings), the findings, the verdict line;
// SHOW_EXPECTED (--show-expected): each node's table of its pairs' expected figures and shares.
std::string render_report(const NvlinkRun& run, const Analysis& analysis, bool show_expected = false);
// One node: its legend, matrices, medians, targets, (the expected figures,) findings.
std::string render_node(const NodeMatrix& node, const NodeAnalysis& analysis, bool show_expected = false);
// "GPU 3 +12 replay, +0 recovery, +0 CRC flit, +0 CRC data over 18 links": a GPU's NVLink error
// counters' rise over the run; "not read" where NVML gave none.
std::string counters_rise(const Gpu& gpu);

}  // namespace commsweep::nvlink
