#include "report/gpu_findings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/sizes.hpp"

namespace commsweep::report {
namespace {

// A row as the findings see it: the rows of one group (a test, type and operator; an EP
// implementation, type, routing and shape) differ by size, and consecutive sizes are grouped.
struct WindowRow {
  std::string group;  // "all_reduce float sum"
  std::string size;   // "64 MiB", or "4096" with unit " tokens"
  std::string unit;
  std::vector<const std::vector<GpuWindow>*> halves;
};

std::vector<WindowRow> window_rows(const std::vector<ResultRow>& rows) {
  std::vector<WindowRow> out;
  for (const ResultRow& r : rows)
    out.push_back({r.test + " " + r.type + (r.redop == "none" ? "" : " " + r.redop), binary_size_text(r.size_bytes), "",
                   {&r.out_of_place.gpu_state, &r.in_place.gpu_state}});
  return out;
}

std::vector<WindowRow> window_rows(const std::vector<EpRow>& rows) {
  std::vector<WindowRow> out;
  for (const EpRow& r : rows)
    out.push_back({"ep " + r.impl + " " + r.dtype + " " + r.routing + " (hidden " + std::to_string(r.hidden) + ", top-" +
                       std::to_string(r.topk) + " of " + std::to_string(r.experts) + ")",
                   std::to_string(r.tokens), " tokens", {&r.gpu_state}});
  return out;
}

// One thing wrong with one rank's GPU in one row: its kind and the worst window's figures.
struct Mark {
  double value = 0;  // throttle: share (-1: at the window's end only); drift: the GPU's reading
  double mean = 0;   // drift: the node's mean
  int gpu = -1;
};
// (rank, what) -> per row index, the worst mark of its halves.
using Marks = std::map<std::pair<int, std::string>, std::map<std::size_t, Mark>>;

void keep_worst(std::map<std::size_t, Mark>& by_row, std::size_t row, const Mark& m, bool higher_is_worse) {
  const auto it = by_row.find(row);
  if (it == by_row.end() || (higher_is_worse ? m.value > it->second.value : m.value < it->second.value)) by_row[row] = m;
}

// The windows of one node that span the same moments: those whose length lies within
// kWindowMatchPct and kWindowMatchUs of the node's median.
std::vector<const GpuWindow*> same_moments(const std::vector<const GpuWindow*>& windows) {
  std::vector<double> lengths;
  for (const GpuWindow* w : windows) lengths.push_back(w->window_us);
  std::sort(lengths.begin(), lengths.end());
  const std::size_t n = lengths.size();
  const double median = n == 0 ? 0 : n % 2 ? lengths[n / 2] : (lengths[n / 2 - 1] + lengths[n / 2]) / 2;
  const double tolerance = std::max(median * kWindowMatchPct / 100, kWindowMatchUs);
  std::vector<const GpuWindow*> out;
  for (const GpuWindow* w : windows)
    if (std::abs(w->window_us - median) <= tolerance) out.push_back(w);
  return out;
}

// The throttles of each window, and each GPU's drift from the mean of its node's GPUs in the
// same window (those of its windows that span the same moments).
Marks marks_of(const std::vector<WindowRow>& rows, const std::vector<std::string>& hosts) {
  Marks marks;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const std::vector<GpuWindow>* half : rows[i].halves) {
      std::map<std::string, std::vector<const GpuWindow*>> by_host;
      for (const GpuWindow& w : *half) {
        for (const ThrottleShare& th : w.throttles)
          keep_worst(marks[{w.rank, "throttle:" + th.reason}], i, Mark{th.share ? *th.share : -1.0, 0, w.gpu}, true);
        if (w.rank >= 0 && static_cast<std::size_t>(w.rank) < hosts.size()) by_host[hosts[w.rank]].push_back(&w);
      }
      for (const auto& entry : by_host) {
        const std::vector<const GpuWindow*> ws = same_moments(entry.second);
        auto drift = [&](auto reading, const std::string& what, double pct, bool below) {
          double sum = 0;
          int n = 0;
          for (const GpuWindow* w : ws)
            if (const auto v = reading(*w)) sum += *v, ++n;
          if (n < 2 || sum <= 0) return;
          const double mean = sum / n;
          for (const GpuWindow* w : ws) {
            const auto v = reading(*w);
            if (!v) continue;
            const double off = (*v - mean) / mean * 100;
            if (below ? off < -pct : off > pct) keep_worst(marks[{w->rank, what}], i, Mark{*v, mean, w->gpu}, !below);
          }
        };
        drift([](const GpuWindow& w) { return w.sm_mhz_end; }, "clock", kClockDriftPct, true);
        drift([](const GpuWindow& w) { return w.power_end_w; }, "power", kPowerDriftPct, false);
      }
    }
  }
  return marks;
}

// Consecutive rows of one test, type and operator, each marked: one range.
struct Range {
  std::size_t first, last;
  Mark worst;
  bool higher_is_worse;
};
std::vector<Range> ranges_of(const std::vector<WindowRow>& rows, const std::map<std::size_t, Mark>& by_row,
                             bool higher_is_worse) {
  std::vector<Range> out;
  auto same_sweep = [&](std::size_t a, std::size_t b) { return rows[a].group == rows[b].group; };
  for (const auto& [row, m] : by_row) {
    if (!out.empty() && out.back().last + 1 == row && same_sweep(out.back().last, row)) {
      Range& r = out.back();
      r.last = row;
      if (higher_is_worse ? m.value > r.worst.value : m.value < r.worst.value) r.worst = m;
      continue;
    }
    out.push_back({row, row, m, higher_is_worse});
  }
  return out;
}

std::string rows_text(const std::vector<WindowRow>& rows, const Range& r) {
  const WindowRow& a = rows[r.first];
  std::string sizes = a.size;
  if (r.last != r.first) sizes += "-" + rows[r.last].size;
  return "the " + sizes + a.unit + " " + a.group + (r.last == r.first ? " row" : " rows");
}

std::string who(int rank, int gpu, const std::vector<std::string>& hosts) {
  return "rank " + std::to_string(rank) + " (host " +
         (static_cast<std::size_t>(rank) < hosts.size() ? hosts[rank] : std::string("?")) + ", GPU " +
         std::to_string(gpu) + ")";
}

std::string share_text(double share) {
  if (share < 0) return "active at the window's end";
  char s[64];
  std::snprintf(s, sizeof s, "%.0f%% of the window", share * 100);
  return s;
}

std::vector<std::string> findings_of(const std::vector<WindowRow>& rows,
                                     const std::vector<std::string>& hosts_by_rank) {
  std::vector<std::string> out;
  for (const auto& [key, by_row] : marks_of(rows, hosts_by_rank)) {
    const auto& [rank, what] = key;
    const bool throttle = what.rfind("throttle:", 0) == 0;
    const bool higher_is_worse = throttle || what == "power";
    for (const Range& r : ranges_of(rows, by_row, higher_is_worse)) {
      char line[1024];
      const std::string name = who(rank, r.worst.gpu, hosts_by_rank);
      if (throttle) {
        std::snprintf(line, sizeof line,
                      "GPU throttled: %s was held by %s (%s%s) during %s: the likely cause of %s, before the fabric",
                      name.c_str(), what.substr(9).c_str(), r.first == r.last || r.worst.value < 0 ? "" : "up to ",
                      share_text(r.worst.value).c_str(), rows_text(rows, r).c_str(),
                      r.first == r.last ? "its time" : "their times");
      } else if (what == "clock") {
        std::snprintf(line, sizeof line,
                      "GPU clock drift: %s ran its SM clock at %.0f MHz, %.0f%% below its node's mean of %.0f MHz "
                      "(limit %.0f%%, DCGM 4.5's rule), during %s",
                      name.c_str(), r.worst.value, (r.worst.mean - r.worst.value) / r.worst.mean * 100,
                      r.worst.mean, kClockDriftPct, rows_text(rows, r).c_str());
      } else {
        std::snprintf(line, sizeof line,
                      "GPU power drift: %s drew %.0f W, %.0f%% above its node's mean of %.0f W (limit %.0f%%, "
                      "DCGM 4.5's rule), during %s",
                      name.c_str(), r.worst.value, (r.worst.value - r.worst.mean) / r.worst.mean * 100,
                      r.worst.mean, kPowerDriftPct, rows_text(rows, r).c_str());
      }
      out.push_back(line);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> gpu_state_findings(const std::vector<ResultRow>& rows,
                                            const std::vector<std::string>& hosts_by_rank) {
  return findings_of(window_rows(rows), hosts_by_rank);
}

std::vector<std::string> gpu_state_findings(const std::vector<EpRow>& rows,
                                            const std::vector<std::string>& hosts_by_rank) {
  return findings_of(window_rows(rows), hosts_by_rank);
}

std::vector<std::string> throttle_findings(const std::vector<GpuWindow>& windows,
                                           const std::function<std::string(const GpuWindow&)>& name,
                                           const std::string& during) {
  std::vector<std::string> out;
  for (const GpuWindow& w : windows) {
    if (w.throttles.empty()) continue;
    std::string held;
    for (const ThrottleShare& th : w.throttles)
      held += (held.empty() ? "" : " and ") + th.reason + " (" + share_text(th.share ? *th.share : -1.0) + ")";
    out.push_back("GPU throttled: " + name(w) + " was held by " + held + " during " + during +
                  ": the likely cause of its slowness, before the fabric");
  }
  return out;
}

std::string throttle_during(const std::vector<ResultRow>& rows, int rank) {
  std::map<std::string, std::pair<int, double>> seen;  // reason -> windows, largest share
  int windows = 0;
  for (const WindowRow& row : window_rows(rows))
    for (const std::vector<GpuWindow>* half : row.halves)
      for (const GpuWindow& w : *half) {
        if (w.rank != rank) continue;
        ++windows;
        for (const ThrottleShare& th : w.throttles) {
          auto& [n, share] = seen[th.reason];
          ++n;
          share = std::max(share, th.share ? *th.share : 0.0);
        }
      }
  std::string out;
  for (const auto& [reason, s] : seen) {
    char part[160];
    std::snprintf(part, sizeof part, "%s in %d of its %d windows%s", reason.c_str(), s.first, windows,
                  s.second > 0 ? (", up to " + std::to_string(static_cast<int>(std::lround(s.second * 100))) +
                                  "% of a window").c_str()
                               : "");
    out += (out.empty() ? "" : "; ") + std::string(part);
  }
  return out;
}

}  // namespace commsweep::report
