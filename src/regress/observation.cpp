#include "regress/observation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/sizes.hpp"
#include "regress/matrices.hpp"

namespace commsweep::regress {
namespace {

void add_sample(Observation& o, double bandwidth, double time, const std::vector<double>& ranks,
                std::optional<std::uint64_t> wrong, double other_half_time = 0) {
  o.bandwidth_gbps.push_back(bandwidth);
  o.time_us.push_back(time);
  o.rank_time_us.push_back(ranks);
  o.within_spread_pct.push_back(within_row_spread_pct(time, other_half_time));
  if (wrong) o.wrong = o.wrong.value_or(0) + *wrong;
}

void observe_collectives(const report::Results& results, std::map<Key, Observation>& out) {
  for (const auto& row : results.rows) {
    const std::tuple<const char*, const report::Timing*, const report::Timing*> halves[] = {
        {"out_of_place", &row.out_of_place, &row.in_place}, {"in_place", &row.in_place, &row.out_of_place}};
    for (const auto& [place, t, other] : halves) {
      Key key{row.test, row.type, row.redop, row.root, "", row.size_bytes, place};
      auto& o = out[key];
      o.key = key;
      add_sample(o, t->busbw_gbps, t->time_us, t->rank_time_us, t->wrong, other->time_us);
      if (t->per_iter) {
        o.p99_us.push_back(t->per_iter->p99_us);
        o.per_iter.push_back(*t->per_iter);
      }
    }
  }
}

void observe_ep(const report::Results& results, std::map<Key, Observation>& out) {
  for (const auto& row : results.ep_rows) {
    // The reference implementation keeps the key it had before --ep-impl existed.
    const std::string impl = row.impl == "alltoallv" ? "" : row.impl + " ";
    const std::string config = impl + row.routing + " h" + std::to_string(row.hidden) + " k" +
                               std::to_string(row.topk) + " e" + std::to_string(row.experts);
    const std::pair<const char*, const report::EpPhase*> phases[] = {
        {"dispatch", &row.dispatch}, {"combine", &row.combine}};
    for (const auto& [place, p] : phases) {
      Key key{"ep", row.dtype, "none", -1, config, static_cast<std::uint64_t>(row.tokens), place};
      auto& o = out[key];
      o.key = key;
      add_sample(o, p->bandwidth_gbps, p->time_us, p->rank_time_us, p->wrong);
    }
  }
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
  observe_collectives(results, out);
  observe_ep(results, out);
  for (const auto& doc : results.nvlink) observe_nvlink(doc, out);
  for (const auto& doc : results.pairs) observe_pairs(doc, out);
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
    merged.pairs.insert(merged.pairs.end(), r.pairs.begin(), r.pairs.end());
    merged.nvlink.insert(merged.nvlink.end(), r.nvlink.begin(), r.nvlink.end());
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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double within_row_spread_pct(double time_us, double other_half_time_us) {
  const double lo = std::min(time_us, other_half_time_us);
  return lo > 0 ? std::fabs(time_us - other_half_time_us) / lo * 100.0 : 0.0;
}

double spread_pct(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = median(v);
  if (m <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / m * 100.0;
}

}  // namespace commsweep::regress
