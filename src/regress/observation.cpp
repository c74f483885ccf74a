#include "regress/observation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/sizes.hpp"

namespace commsweep::regress {
namespace {

Key key_of(const report::Series& s) { return {s.test, s.type, s.redop, s.root, s.config, s.size, s.place}; }

// One sample of a key, gathered from the figures next to each other in the file: its time
// figure's, its bandwidth figure's (copied: a row's figures live while its row is read).
struct ObservedSample {
  bool open = false;
  Key key;
  std::optional<double> time_us, gbps;
  double bytes = 0;  // the bandwidth's bytes moved
  std::vector<double> rank_time_us;
  double within = 0;
  std::optional<std::uint64_t> wrong;  // the first of its figures that was checked
  std::optional<report::IterationStats> per_iter;
};

void close_sample(ObservedSample& s, std::map<Key, Observation>& out) {
  if (!s.open) return;
  auto& o = out[s.key];
  o.key = s.key;
  const double gbps = s.gbps.value_or(0);
  // A bandwidth alone: the time that moves its bytes at it (GB/s = 1e9 bytes/s).
  const double time = s.time_us ? *s.time_us : (gbps > 0 ? s.bytes / (gbps * 1e3) : 0);
  o.bandwidth_gbps.push_back(gbps);
  o.time_us.push_back(time);
  o.rank_time_us.push_back(std::move(s.rank_time_us));
  o.within_spread_pct.push_back(s.within);
  if (s.wrong) o.wrong = o.wrong.value_or(0) + *s.wrong;
  if (s.per_iter) {
    o.p99_us.push_back(s.per_iter->p99_us);
    o.per_iter.push_back(std::move(*s.per_iter));
  }
  s = ObservedSample{};
}

void observe_figure(const report::Figure& f, ObservedSample& s, std::map<Key, Observation>& out) {
  if (f.role == report::Role::Shown) return;
  const bool time = f.role == report::Role::Time;
  Key key = key_of(f.series);
  // A new sample: another key, or a figure of a role this one has already (a second cycle).
  if (!s.open || !(s.key == key) || (time ? s.time_us.has_value() : s.gbps.has_value())) {
    close_sample(s, out);
    s.open = true;
    s.key = std::move(key);
  }
  if (time) {
    s.time_us = f.value;
    s.rank_time_us = f.spread.rank_values;
    s.within = f.spread.halves_pct;
    s.per_iter = f.spread.iterations;
  } else {
    s.gbps = f.value;
    s.bytes = f.bytes;
  }
  if (!s.wrong) s.wrong = f.wrong;
}

}  // namespace

std::string size_text(std::uint64_t bytes) { return compact_size(bytes); }

std::string describe(const Key& k) {
  if (k.is_ep()) {
    return "ep " + k.config + " " + k.type + " " + std::to_string(k.size) + " tokens " + k.place;
  }
  // "nvlink vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0) 256M ce_write", "pairs a <-> b 1M sendrecv"
  if (k.is_matrix()) return k.test + " " + k.config + " " + size_text(k.size) + " " + k.place;
  std::string text = k.test + " " + k.type + " " + k.redop;
  if (k.root >= 0) text += " root " + std::to_string(k.root);
  return text + " " + size_text(k.size) + " " + k.place;
}

std::map<Key, Observation> observe(const report::Results& results) {
  std::map<Key, Observation> out;
  ObservedSample sample;
  report::for_each_figure(results, [&](const report::Figure& f) { observe_figure(f, sample, out); });
  close_sample(sample, out);
  return out;
}

report::Results merge_runs(const std::vector<report::Results>& runs, const std::vector<std::string>& names) {
  report::Results merged = runs.at(0);
  const auto per_rank = [](const report::Results& r) { return !r.rows.empty() || !r.ep_rows.empty(); };
  std::size_t ranks_from = 0;  // the first file with per-rank times: their hosts are the run's
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (per_rank(r) && per_rank(merged) && r.provenance.hosts != merged.provenance.hosts) {
      throw std::runtime_error(names.at(i) + ": its ranks ran on other hosts than those of " + names.at(ranks_from) +
                               "; compare them one at a time");
    }
    if (per_rank(r) && !per_rank(merged)) {
      merged.provenance = r.provenance;
      ranks_from = i;
    }
    merged.rows.insert(merged.rows.end(), r.rows.begin(), r.rows.end());
    merged.ep_rows.insert(merged.ep_rows.end(), r.ep_rows.begin(), r.ep_rows.end());
    merged.documents.insert(merged.documents.end(), r.documents.begin(), r.documents.end());
    merged.sheets.insert(merged.sheets.end(), r.sheets.begin(), r.sheets.end());
    merged.wrong_total += r.wrong_total;
    if (merged.complete && !r.complete) {  // the first incomplete run says why
      merged.interrupted_by = r.interrupted_by;
      merged.failure = r.failure;
    }
    merged.complete = merged.complete && r.complete;
    // Every run's hardware findings and verdict lines are judged together.
    if (r.health.is_object()) {
      if (!merged.health.is_object()) merged.health = nlohmann::json{{"findings", nlohmann::json::array()}};
      for (const char* key : {"findings", "verdict"}) {
        if (!r.health.contains(key) || !r.health.at(key).is_array()) continue;
        auto& to = merged.health[key];
        if (!to.is_array()) to = nlohmann::json::array();
        for (const auto& item : r.health.at(key)) to.push_back(item);
      }
    }
  }
  return merged;
}


double within_row_spread_pct(double time_us, double other_half_time_us) {
  return report::halves_apart_pct(time_us, other_half_time_us);
}

double spread_pct(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = median(v);
  if (m <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / m * 100.0;
}

}  // namespace commsweep::regress
