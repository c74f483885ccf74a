// The comparison as JSON (schema commsweep.compare/3, results/schema/README.md).
#include "regress/render.hpp"

namespace commsweep::regress {

nlohmann::json comparison_json(const Comparison& c) {
  using nlohmann::json;
  json judgements = json::array();
  for (const auto& j : c.judgements) {
    json key{{"test", j.key.test}, {"type", j.key.type}, {"redop", j.key.redop}, {"root", j.key.root},
             {"config", j.key.config}, {"size", j.key.size}, {"place", j.key.place}};
    judgements.push_back({{"key", key},
                          {"verdict", name_of(j.verdict)},
                          {"metric", name_of(j.metric)},
                          {"missing", j.missing},
                          {"baseline", j.has_baseline && !j.missing ? json(j.baseline_value) : json(nullptr)},
                          {"value", j.missing ? json(nullptr) : json(j.value)},
                          {"change_pct", j.has_baseline && !j.missing ? json(j.change_pct) : json(nullptr)},
                          {"spread_pct", j.noise_pct},
                          // The NOISY band and its parts (since schema 3), null where not compared.
                          {"noise", j.has_baseline && !j.missing
                                        ? json{{"band_pct", j.noisy_band_pct},
                                               {"baseline_pct", j.noise.baseline},
                                               {"cycles_pct", j.noise.cycles},
                                               {"halves_pct", j.noise.halves},
                                               {"cv_pct", j.noise.cv},
                                               {"p95_over_p50_pct", j.noise.p95}}
                                        : json(nullptr)},
                          {"wrong", j.wrong},
                          {"reason", j.reason},
                          // The tail rule's figures (since issue 26), null where it was not judged.
                          {"tail", j.tail_judged ? json{{"baseline_p99_us", j.tail_baseline_us},
                                                        {"p99_us", j.tail_us},
                                                        {"change_pct", j.tail_change_pct},
                                                        {"noise_pct", j.tail_noise_pct}}
                                                 : json(nullptr)}});
  }
  json stragglers = json::array();
  for (const auto& s : c.stragglers) {
    stragglers.push_back({{"rank", s.rank}, {"host", s.host}, {"gpu", s.gpu},
                          {"outlier_samples", s.outlier_samples}, {"samples", s.samples},
                          {"worst_slower_pct", s.worst_slower_pct}, {"worst_at", s.worst_at}});
  }
  json health = json::array();
  for (const auto& h : c.health) {
    health.push_back({{"severity", h.severity}, {"host", h.host}, {"component", h.component}, {"counter", h.counter},
                      {"detail", h.detail}, {"delta", h.delta >= 0 ? json(h.delta) : json(nullptr)},
                      {"rate_per_s", h.rate_per_s >= 0 ? json(h.rate_per_s) : json(nullptr)},
                      {"rule", h.rule}, {"limit", h.limit}});
  }
  json counts;
  for (Verdict v : {Verdict::Same, Verdict::Pass, Verdict::Warn, Verdict::Noisy, Verdict::Fail, Verdict::NotJudged}) {
    counts[name_of(v)] = verdict_count(c, v);
  }
  json differs = json::array();
  for (const auto& d : c.setup.differences) differs.push_back({{"property", d.property}, {"run", d.run}, {"baseline", d.baseline}});
  const json setup{{"differs", differs}, {"allowed", c.setup.allowed}, {"not_checked", c.setup.not_checked}};
  return json{{"schema", kCompareSchema}, {"results", c.results_file}, {"baseline", c.baseline_file},
              {"shape", c.shape}, {"mode", c.mode}, {"started_at", c.started_at},
              {"complete", c.complete}, {"ended_by", c.ended_by}, {"exit_code", c.exit_code}, {"counts", counts},
              {"setup", setup}, {"wrong_total", c.wrong_total}, {"stragglers", stragglers}, {"health", health},
              {"health_evidence", c.health_evidence}, {"judgements", judgements}};
}

}  // namespace commsweep::regress
