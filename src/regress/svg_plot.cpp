#include "regress/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/strings.hpp"
#include "regress/observation.hpp"

namespace commsweep::regress {
namespace {

constexpr double kWidth = 720, kHeight = 340;
constexpr double kLeft = 70, kRight = 170, kTop = 34, kBottom = 50;  // legend on the right

struct Frame {
  double x_lo, x_hi, y_hi;  // log2 x range, linear y range [0, y_hi]
  double px(double x) const {
    const double span = x_hi > x_lo ? x_hi - x_lo : 1;
    return kLeft + (std::log2(x) - x_lo) / span * (kWidth - kLeft - kRight);
  }
  double py(double y) const { return kHeight - kBottom - y / y_hi * (kHeight - kTop - kBottom); }
};

std::string num(double v) { return printed("%.1f", v); }
std::string tick(double v) { return printed("%g", v); }

// A "nice" step (1, 2 or 5 times a power of ten) for about five ticks up to hi.
double nice_step(double hi) {
  const double raw = hi / 5, p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

Frame frame_of(const Plot& plot) {
  double lo = 1e300, hi = -1e300, y = 0;
  for (const auto& s : plot.series) {
    for (const auto& p : s.points) {
      lo = std::min(lo, std::log2(p.x));
      hi = std::max(hi, std::log2(p.x));
      y = std::max(y, p.y);
    }
  }
  if (lo > hi) lo = 0, hi = 1;
  if (lo == hi) lo -= 1, hi += 1;
  if (y <= 0) y = 1;
  const double step = nice_step(y * 1.05);
  return {lo, hi, std::ceil(y * 1.05 / step) * step};
}

void axes(std::ostringstream& out, const Plot& plot, const Frame& f) {
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  out << "<rect x='" << x0 << "' y='" << y1 << "' width='" << x1 - x0 << "' height='" << y0 - y1
      << "' fill='#ffffff' stroke='#444444'/>\n";
  const double ystep = nice_step(f.y_hi);
  for (double y = 0; y <= f.y_hi * 1.0001; y += ystep) {
    out << "<line x1='" << x0 << "' x2='" << x1 << "' y1='" << num(f.py(y)) << "' y2='" << num(f.py(y))
        << "' stroke='#e4e4e4'/><text x='" << x0 - 6 << "' y='" << num(f.py(y) + 4)
        << "' text-anchor='end'>" << tick(y) << "</text>\n";
  }
  // One tick per power of two, thinned to at most about ten labels.
  const int first = static_cast<int>(std::ceil(f.x_lo)), last = static_cast<int>(std::floor(f.x_hi));
  const int every = std::max(1, (last - first) / 10 + 1);
  for (int e = first; e <= last; ++e) {
    if ((e - first) % every) continue;
    const double x = std::ldexp(1.0, e), px = f.px(x);
    const std::string label = plot.x_is_bytes ? size_text(static_cast<std::uint64_t>(x)) : tick(x);
    out << "<line x1='" << num(px) << "' x2='" << num(px) << "' y1='" << y1 << "' y2='" << y0
        << "' stroke='#eeeeee'/><text x='" << num(px) << "' y='" << y0 + 16 << "' text-anchor='middle'>"
        << label << "</text>\n";
  }
  out << "<text x='" << (x0 + x1) / 2 << "' y='" << kHeight - 10 << "' text-anchor='middle'>"
      << xml_escape(plot.x_label) << " (log scale)</text>\n";
  out << "<text transform='translate(16," << (y0 + y1) / 2 << ") rotate(-90)' text-anchor='middle'>"
      << xml_escape(plot.y_label) << "</text>\n";
  out << "<text x='" << x0 << "' y='20' font-weight='bold'>" << xml_escape(plot.title) << "</text>\n";
}

void series(std::ostringstream& out, const PlotSeries& s, const Frame& f) {
  std::string points;
  for (const auto& p : s.points) points += num(f.px(p.x)) + "," + num(f.py(p.y)) + " ";
  out << "<polyline fill='none' stroke='" << s.colour << "' stroke-width='" << s.width << "'"
      << (s.dashed ? " stroke-dasharray='7 4'" : "") << " points='" << points << "'/>\n";
  for (const auto& p : s.points) {
    const bool marked = !p.mark.empty();
    out << "<circle cx='" << num(f.px(p.x)) << "' cy='" << num(f.py(p.y)) << "' r='" << (marked ? 5 : s.width + 1)
        << "' fill='" << (marked ? p.mark : s.colour) << "'/>\n";
  }
}

void legend(std::ostringstream& out, const Plot& plot) {
  double y = kTop + 10;
  for (const auto& s : plot.series) {
    if (!s.legend) continue;
    const double x = kWidth - kRight + 12;
    out << "<line x1='" << x << "' x2='" << x + 24 << "' y1='" << y << "' y2='" << y << "' stroke='" << s.colour
        << "' stroke-width='" << s.width << "'" << (s.dashed ? " stroke-dasharray='7 4'" : "") << "/>"
        << "<text x='" << x + 30 << "' y='" << y + 4 << "'>" << xml_escape(s.name) << "</text>\n";
    y += 18;
  }
}

}  // namespace


std::string render_svg(const Plot& plot) {
  const Frame f = frame_of(plot);
  std::ostringstream out;
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
      << "' viewBox='0 0 " << kWidth << " " << kHeight << "' font-family='sans-serif' font-size='12'>\n";
  axes(out, plot, f);
  for (const auto& s : plot.series) series(out, s, f);
  legend(out, plot);
  out << "</svg>\n";
  return out.str();
}

}  // namespace commsweep::regress
