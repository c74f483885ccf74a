// The HTML report of one workload's sheet (report/figure.hpp), written once for every workload
// with matrix results: `commsweep nvlink --html`, `commsweep pairs --html`, the test-only grid's.
// Self-contained (inline CSS and SVG, no script, nothing fetched), as the regression report:
//   - the sheet's notes (how it was judged) and findings;
//   - a heatmap (report/heatmap_svg.hpp) per matrix: the figures whose case has the axes src and
//     dst (a direction: rows src, columns dst) or node_a and node_b (either order: both cells),
//     one per metric better higher and per value of the case's other parts (nvlink: per host and
//     test), coloured by the ratio to that matrix's median, green to amber at the sheet's
//     slow_fraction; rows ordered by the sheet's groups and each group outlined (pairs' leaves),
//     and where there are two groups or more the groups' matrix (each cell its slowest figure);
//     up to kHeatmapLabels rows (above: the groups' matrix only);
//   - the lowest figures against their median (every one judged slow, at least 10, at most 50),
//     with the workload's verdict and why.
#pragma once

#include <cstddef>
#include <string>

#include "report/figure.hpp"

namespace commsweep::report {

constexpr std::size_t kHeatmapLabels = 128;

std::string render_sheet_html(const Sheet& sheet);

}  // namespace commsweep::report
