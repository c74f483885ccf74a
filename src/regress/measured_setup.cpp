#include "regress/measured_setup.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "regress/baseline.hpp"

namespace commsweep::regress {
namespace {

// GPUs per node: the distinct GPUs (PCI bus ids) of each host's ranks; "0" on host memory.
std::string gpus_per_node(const report::Provenance& p) {
  std::map<std::string, std::set<std::string>> gpus;
  for (const auto& host : p.hosts) gpus[host];
  for (const auto& g : p.gpus) {
    if (g.device >= 0) gpus[g.host].insert(g.pci_bus_id);
  }
  std::vector<std::size_t> counts;
  for (const auto& [host, ids] : gpus) counts.push_back(ids.size());
  if (counts.empty()) return "";
  std::sort(counts.rbegin(), counts.rend());
  if (counts.front() == counts.back()) return std::to_string(counts.front());
  std::string text;
  for (std::size_t c : counts) text += (text.empty() ? "" : "+") + std::to_string(c);
  return text;
}

// Files written before provenance.timer: the host clock unless the arguments chose the device.
std::string timer_of(const report::Results& run) {
  if (!run.provenance.timer.empty()) return run.provenance.timer;
  const auto& args = run.provenance.arguments;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--timer=device" || (args[i] == "--timer" && i + 1 < args.size() && args[i + 1] == "device")) {
      return run.provenance.backend == "nccl" ? "device" : "host";  // mpi has only the host clock
    }
  }
  return "host";
}

std::set<std::string> values_of(const std::vector<MeasuredSetup>& setups, std::string MeasuredSetup::*field) {
  std::set<std::string> out;
  for (const auto& s : setups) {
    if (!(s.*field).empty()) out.insert(s.*field);
  }
  return out;
}

std::string joined(const std::set<std::string>& values) {
  std::string text;
  for (const auto& v : values) text += (text.empty() ? "" : " and ") + v;
  return text;
}

std::string blank_joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : " ") + item;
  return text;
}

// The items of a list property's values.
std::set<std::string> items_of(const std::set<std::string>& values) {
  std::set<std::string> items;
  for (const auto& v : values) {
    for (std::size_t from = 0; from < v.size();) {
      const std::size_t to = std::min(v.find(' ', from), v.size());
      if (to > from) items.insert(v.substr(from, to - from));
      from = to + 1;
    }
  }
  return items;
}

// At most 8 items of a list, then how many more: a cluster's hosts do not fit a line.
std::string listed(const std::set<std::string>& items) {
  constexpr std::size_t kShown = 8;
  std::string text;
  std::size_t n = 0;
  for (const auto& item : items) {
    if (n++ == kShown) return text + " and " + std::to_string(items.size() - kShown) + " more";
    text += (text.empty() ? "" : " ") + item;
  }
  return text;
}

// A list property: the run's items the baseline lacks, said with the baseline's; none: "".
std::optional<SetupDifference> list_difference(const SetupProperty& p, const std::set<std::string>& ours,
                                               const std::set<std::string>& theirs) {
  const auto run = items_of(ours), base = items_of(theirs);
  std::set<std::string> extra;
  std::set_difference(run.begin(), run.end(), base.begin(), base.end(), std::inserter(extra, extra.end()));
  if (extra.empty()) return std::nullopt;
  return SetupDifference{p.name, listed(extra) + " (not in the baseline)", listed(base)};
}

}  // namespace

MeasuredSetup measured_setup(const report::Results& run) {
  const report::Provenance& p = run.provenance;
  MeasuredSetup s;
  s.backend = p.backend;
  s.ranks = std::to_string(p.ranks > 0 ? p.ranks : static_cast<int>(p.hosts.size()));
  s.nodes = std::to_string(std::set<std::string>(p.hosts.begin(), p.hosts.end()).size());
  s.gpus_per_node = gpus_per_node(p);
  s.shape = shape_of(p);
  if (!run.rows.empty()) {
    // Files written before --buffers measured with the same bytes every iteration.
    s.buffers = p.buffers.empty() ? "warm" : p.buffers;
    s.timer = timer_of(run);
  }
  // The documents' (a workload's own --json, a suite's pairs sweep): the nodes their keys name,
  // and per document "<workload>:<bytes>" ("nvlink:256M", "pairs:1M").
  std::set<std::string> nodes, bytes;
  for (const auto& sheet : run.sheets) {
    nodes.insert(sheet->nodes.begin(), sheet->nodes.end());
    bytes.insert(sheet->workload + ":" + size_text(sheet->bytes));
  }
  s.matrix_hosts = blank_joined(std::vector<std::string>(nodes.begin(), nodes.end()));
  s.matrix_bytes = blank_joined(std::vector<std::string>(bytes.begin(), bytes.end()));
  return s;
}

const std::vector<SetupProperty>& setup_properties() {
  static const std::vector<SetupProperty> properties = {
      {"backend", "backend", &MeasuredSetup::backend},
      {"ranks", "ranks", &MeasuredSetup::ranks},
      {"nodes", "nodes", &MeasuredSetup::nodes},
      {"GPUs per node", "gpus_per_node", &MeasuredSetup::gpus_per_node},
      {"shape", "shape", &MeasuredSetup::shape},
      {"buffers", "buffers", &MeasuredSetup::buffers},
      {"timer", "timer", &MeasuredSetup::timer},
      {"hosts", "matrix_hosts", &MeasuredSetup::matrix_hosts, true},
      {"bytes", "matrix_bytes", &MeasuredSetup::matrix_bytes, true},
  };
  return properties;
}

SetupCheck check_setup(const std::vector<MeasuredSetup>& run, const std::vector<MeasuredSetup>& baseline,
                       const std::string& run_mode, const std::string& baseline_mode) {
  SetupCheck check;
  std::string unrecorded;
  for (const auto& p : setup_properties()) {
    const auto ours = values_of(run, p.value);
    if (ours.empty()) continue;  // does not apply to this run (buffers of an EP run)
    const auto theirs = values_of(baseline, p.value);
    if (theirs.empty()) {
      unrecorded += (unrecorded.empty() ? "" : ", ") + std::string(p.name);
      continue;
    }
    if (p.list) {
      if (auto d = list_difference(p, ours, theirs)) check.differences.push_back(*d);
      continue;
    }
    // A baseline of several settings (--allow-mixed) takes a run of any of them.
    if (!std::includes(theirs.begin(), theirs.end(), ours.begin(), ours.end())) {
      check.differences.push_back({p.name, joined(ours), joined(theirs)});
    }
  }
  if (!unrecorded.empty()) check.not_checked.push_back(unrecorded + " (the baseline does not record them)");
  // The fabric mode is what the user called it (baseline --mode): a results file does not say.
  const bool baseline_has_mode = !baseline_mode.empty() && baseline_mode != "default";
  if (!run_mode.empty() && baseline_has_mode && run_mode != baseline_mode) {
    check.differences.push_back({"mode", run_mode, baseline_mode});
  } else if (run_mode.empty() && baseline_has_mode) {
    check.not_checked.push_back("mode (the results do not record it: give --mode " + baseline_mode +
                                " to check it)");
  } else if (!run_mode.empty() && !baseline_has_mode) {
    check.not_checked.push_back("mode (the baseline was made without --mode)");
  }
  return check;
}

std::string describe(const SetupDifference& d) {
  return d.property + ": run " + d.run + ", baseline " + d.baseline;
}

}  // namespace commsweep::regress
