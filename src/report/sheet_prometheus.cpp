#include "report/sheet_prometheus.hpp"

#include <map>
#include <algorithm>

#include "report/prometheus.hpp"

namespace commsweep::report {
namespace {

// NAME as a Prometheus metric or label name: [a-zA-Z0-9_], other characters as '_'.
std::string prom_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

std::string prom_unit(const std::string& unit) { return unit == "GB/s" ? "gbps" : prom_name(unit); }

// A family: its figures' case part names, in the order first met.
struct PromFamily {
  std::string name, help;
  std::vector<std::string> labels;
  std::vector<const Figure*> figures;
};

void prom_add(std::vector<PromFamily>& families, std::map<std::string, std::size_t>& index, const std::string& name,
              const std::string& help, const Figure& f) {
  const auto [it, fresh] = index.emplace(name, families.size());
  if (fresh) families.push_back({name, help, {}, {}});
  PromFamily& family = families[it->second];
  for (const auto& p : f.parts) {
    if (std::find(family.labels.begin(), family.labels.end(), p.name) == family.labels.end()) family.labels.push_back(p.name);
  }
  family.figures.push_back(&f);
}

PromLabels prom_labels(const PromFamily& family, const Figure& f) {
  PromLabels labels;
  for (const auto& name : family.labels) {
    std::string value;
    for (const auto& p : f.parts)
      if (p.name == name) value = p.value;
    labels.emplace_back(prom_name(name), value);
  }
  return labels;
}

}  // namespace

std::string render_sheet_prometheus(const Sheet& sheet, int exit_code) {
  const std::string prefix = "commsweep_" + prom_name(sheet.workload) + "_";
  std::vector<PromFamily> values, verdicts;
  std::map<std::string, std::size_t> value_index, verdict_index;
  for (const Figure& f : sheet.figures) {
    prom_add(values, value_index, prefix + prom_name(f.metric) + "_" + prom_unit(f.unit),
             sheet.workload + " " + f.metric + " in " + f.unit + ", better " + better_text(f.better) +
                 " (GB/s = 1e9 bytes/s), per case.",
             f);
    if (f.slow) {
      prom_add(verdicts, verdict_index, prefix + "slow",
               "1 where " + sheet.workload + " judged the case's metric slow (its own rule, docs/failures.md), else 0.", f);
    }
  }
  Exposition e({});
  for (const auto* set : {&values, &verdicts}) {
    for (const PromFamily& family : *set) {
      // One sample per label set, the last (a pair measured again by a follow-up round): the
      // textfile collector refuses a file with a series twice.
      std::vector<std::pair<PromLabels, double>> samples;
      std::map<PromLabels, std::size_t> seen;
      for (const Figure* f : family.figures) {
        PromLabels labels = prom_labels(family, *f);
        if (set == &verdicts) labels.emplace_back("metric", f->metric);
        const double value = set == &verdicts ? (*f->slow ? 1 : 0) : f->value;
        const auto [it, fresh] = seen.emplace(labels, samples.size());
        if (fresh) samples.emplace_back(std::move(labels), value);
        else samples[it->second].second = value;
      }
      e.family(family.name, family.help);
      for (const auto& [labels, value] : samples) e.sample(labels, value);
    }
  }
  e.family(prefix + "wrong", "Elements (or 8-byte words) that arrived wrong, over the run.");
  e.sample({}, static_cast<double>(sheet.wrong_total));
  e.family(prefix + "complete", "1 where the run measured everything it planned, 0 where a signal or a failure ended it.");
  e.sample({}, sheet.complete ? 1 : 0);
  e.family(prefix + "exit_code", "Exit code of commsweep " + sheet.workload + " (docs/failures.md).");
  e.sample({}, exit_code);
  return e.text();
}

}  // namespace commsweep::report
