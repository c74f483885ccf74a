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

// The colour scale above a heatmap: the gradient from 0 to the healthy reference, with its
// three marks in GB/s (0, the slow threshold, the reference), so that a cell's colour reads as a
// figure without hovering over it.
void write_legend(std::ostream& out, const HeatmapScale& scale) {
  constexpr int kWidth = 240, kTop = 14, kHeight = 12, kSteps = 48;
  // Shifted right so that a threshold near 0 keeps its label on the page.
  out << "<div><svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth + 180 << "' height='" << kTop + kHeight + 22
      << "' font-size='10'><g transform='translate(60 0)'>\n";
  for (int i = 0; i < kSteps; ++i) {
    out << "<rect x='" << i * kWidth / kSteps << "' y='" << kTop << "' width='" << kWidth / kSteps + 1 << "' height='"
        << kHeight << "' fill='" << colour((i + 0.5) / kSteps, scale.slow_fraction) << "'/>\n";
  }
  // The threshold's label above the bar, the ends' below: they cannot overlap, wherever it falls.
  const int slow_x = static_cast<int>(scale.slow_fraction * kWidth);
  out << "<line x1='" << slow_x << "' y1='" << kTop - 3 << "' x2='" << slow_x << "' y2='" << kTop + kHeight
      << "' stroke='#222'/>\n<text x='" << slow_x << "' y='" << kTop - 5 << "' text-anchor='middle'>slow below "
      << fixed(scale.slow_fraction * scale.good) << " GB/s</text>\n"
      << "<text x='0' y='" << kTop + kHeight + 12 << "'>0</text>\n<text x='" << kWidth << "' y='" << kTop + kHeight + 12
      << "' text-anchor='middle'>" << fixed(scale.good) << " GB/s and up</text>\n</g></svg></div>\n";
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
  std::size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  // 6 px a character at font-size 10; the labels are left out when the cells are too small to read.
  const int margin = cell >= 8 ? static_cast<int>(std::min<std::size_t>(longest, 40) * 6 + 8) : 8;
  const int size = margin + n * cell + 10;
  write_legend(out, map.scale);
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << size << "' height='" << size << "' font-size='10'>\n";
  // The labels run down the left and, turned, along the top: the band above the cells holds the columns'.
  for (int i = 0; i < n && cell >= 8; ++i) {
    const double middle = margin + i * cell + cell * 0.75;
    out << "<text x='" << margin - 4 << "' y='" << middle << "' text-anchor='end'>" << xml_escape(labels[i]) << "</text>\n";
    out << "<text transform='translate(" << middle << " " << margin - 4 << ") rotate(-90)'>" << xml_escape(labels[i])
        << "</text>\n";
  }
  for (int i = 0; i < n; ++i) {
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
