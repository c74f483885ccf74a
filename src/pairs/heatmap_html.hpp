// `commsweep pairs --html FILE`: a self-contained HTML report (inline CSS and SVG, no script,
// nothing fetched, as the regression report): the heatmap of pair bandwidth grouped by leaf
// (node x node ordered by leaf with the leaves outlined, up to 128 nodes; leaf x leaf medians
// above), coloured by the ratio to the median rail; the findings and the slowest pairs.
#pragma once

#include <string>

#include "pairs/outliers.hpp"
#include "pairs/record.hpp"

namespace commsweep::pairs {

constexpr std::size_t kHeatmapNodes = 128;  // above: the leaf x leaf heatmap

std::string render_html(const PairsRun& run, const Analysis& analysis);

}  // namespace commsweep::pairs
