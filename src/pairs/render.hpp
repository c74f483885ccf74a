// The text of `commsweep pairs` (rank 0 prints it): the settings, a line per round as it is
// measured, the node legend, the node x node matrix of GB/s (per pair its slowest rail), the
// median, the slow pairs and the likely bad node. Matrix rows are the only lines without '#'.
#pragma once

#include <string>
#include <vector>

#include "pairs/outliers.hpp"
#include "pairs/record.hpp"

namespace commsweep::pairs {

// "N3": nodes are labelled by index in the matrix; the legend names them.
std::string node_label(int node);

// The lines before the first round: what is measured, how, and any node count mismatch.
std::string render_header(const PairsRun& run);
// "# round 2 of 3: N0-N2 1.23 GB/s, N1-N3 1.18 GB/s (N4 sits out)", for the pairs measured
// in that round (run.pairs holds them).
std::string render_round(const PairsRun& run, int round);
// Legend, matrix, median and findings.
std::string render_report(const PairsRun& run, const Analysis& analysis);

// Each slow pair laid at the throttling of its ranks' GPUs during its round's exchange
// (report/gpu_findings.hpp), slowest pair first: "GPU throttled: rank 3 (node-b, GPU 0000:19:00.0)
// was held by power cap (87% of the window) during the N0-N1 pair's exchange in round 1: the
// likely cause of its slowness, before the fabric". Evidence, not a verdict.
std::vector<std::string> gpu_state_findings(const PairsRun& run, const Analysis& analysis);

}  // namespace commsweep::pairs
