// A line plot as inline SVG (no script, no external file): x on a log2 axis (message sizes,
// tokens), y linear from 0. Points may be marked (e.g. a FAIL in red).
#pragma once

#include <string>
#include <vector>

#include "report/heatmap_svg.hpp"

namespace commsweep::regress {

struct PlotPoint {
  double x = 0;  // > 0
  double y = 0;
  std::string mark;  // fill colour of a marker; empty: none
};

struct PlotSeries {
  std::string name;
  std::string colour;   // "#1f77b4"
  double width = 2;
  bool dashed = false;
  bool legend = true;
  std::vector<PlotPoint> points;  // sorted by x
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool x_is_bytes = true;  // tick labels as 1K, 1M; else as numbers
  std::vector<PlotSeries> series;
};

std::string render_svg(const Plot& plot);
// Escapes text for the report (report/heatmap_svg.hpp).
using report::xml_escape;

}  // namespace commsweep::regress
