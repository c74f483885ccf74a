#include "report/heatmap_svg.hpp"

#include <algorithm>
#include <cstdio>

#include "core/strings.hpp"

namespace commsweep::report {
namespace {

// Red (0) through amber (the slow threshold) to green (the healthy reference and above), as
// fractions of that reference.
std::string colour(double ratio, double slow_fraction) {
  const double r = std::clamp(ratio, 0.0, 1.0);
  int red, green;
  if (r < slow_fraction) {
    red = 214, green = static_cast<int>(40 + 150 * r / slow_fraction);
  } else {
    const double t = (r - slow_fraction) / std::max(1e-9, 1 - slow_fraction);
    red = static_cast<int>(230 - 186 * t), green = static_cast<int>(190 - 30 * t);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", red, green, 60);
  return buf;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\'': out += "&#39;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void write_heatmap_svg(std::ostream& out, const Heatmap& map) {
  const auto& labels = map.labels;
  const int n = static_cast<int>(labels.size());
  const int cell = std::max(4, std::min(22, 720 / std::max(n, 1)));
  const int margin = 120, size = margin + n * cell + 10;
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << size << "' height='" << size << "' font-size='10'>\n";
  for (int i = 0; i < n; ++i) {
    if (cell >= 8) {
      out << "<text x='" << margin - 4 << "' y='" << margin + i * cell + cell * 0.75 << "' text-anchor='end'>"
          << xml_escape(labels[i]) << "</text>\n";
    }
    for (int j = 0; j < n; ++j) {
      const double v = map.cells[i][j];
      if (v < 0) continue;
      const double good = map.scale.good;
      out << "<rect x='" << margin + j * cell << "' y='" << margin + i * cell << "' width='" << cell << "' height='" << cell
          << "' fill='" << colour(good > 0 ? v / good : 0, map.scale.slow_fraction) << "'><title>" << xml_escape(labels[i])
          << xml_escape(map.between) << xml_escape(labels[j]) << ": " << fixed(v) << " GB/s, "
          << fixed(map.median > 0 ? v / map.median : 0) << " x median</title></rect>\n";
    }
  }
  const auto& starts = map.group_starts;
  for (std::size_t g = 0; g < starts.size(); ++g) {
    const int from = starts[g], to = g + 1 < starts.size() ? starts[g + 1] : n;
    out << "<rect x='" << margin + from * cell << "' y='" << margin + from * cell << "' width='" << (to - from) * cell
        << "' height='" << (to - from) * cell << "' fill='none' stroke='#222' stroke-width='1.5'/>\n";
  }
  out << "</svg>\n";
}

}  // namespace commsweep::report
