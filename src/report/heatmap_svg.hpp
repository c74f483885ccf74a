// A heatmap as inline SVG for the self-contained HTML reports (no script, nothing fetched):
// rows x columns of GB/s, coloured red (0) through amber (the slow threshold) to green (the
// healthy reference and above). `commsweep pairs --html` (node x node, leaves outlined) and
// `commsweep nvlink --html` (per node, GPU x GPU) draw theirs with it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace commsweep::report {

// TEXT with <, >, &, ' and " escaped, for the text and attributes of every HTML report and SVG
// (the regression report's too: regress/svg_plot.hpp).
std::string xml_escape(const std::string& text);

// The colour scale: green from `good` up, amber at slow_fraction x good, red at 0.
struct HeatmapScale {
  double good = 0;
  double slow_fraction = 0;
};

struct Heatmap {
  std::vector<std::string> labels;          // rows and columns alike
  std::vector<std::vector<double>> cells;   // [row][column], GB/s; < 0: none
  std::vector<int> group_starts;            // where each outlined group starts (none: empty)
  double median = 0;                        // for each cell's "x median" in its tooltip
  HeatmapScale scale;
  std::string between = " - ";              // the tooltip's "row - column" (" -> " for a direction)
};

void write_heatmap_svg(std::ostream& out, const Heatmap& map);

}  // namespace commsweep::report
