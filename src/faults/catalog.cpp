#include "faults/catalog.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/sizes.hpp"

namespace commsweep::faults {
namespace {

std::string form_text(Form form) {
  switch (form) {
    case Form::Rank: return "RANK";
    case Form::RankAtSize: return "RANK[@SIZE]";
    case Form::RankAtRound: return "RANK@ROUND";
    case Form::Leaf: return "LEAF";
    case Form::RankPair: return "RANK,RANK";
  }
  return "";
}

// A rank: 1 to 9 digits, else -1.
int catalog_rank(const std::string& digits) {
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

std::vector<const FaultEntry*> entries_of(std::string_view workload) {
  std::vector<const FaultEntry*> out;
  for (const auto& e : catalog())
    if (e.workload == workload) out.push_back(&e);
  return out;
}

}  // namespace

const std::vector<FaultEntry>& catalog() {
  static const std::vector<FaultEntry> entries = {
      {"collective", "wrong-element", Form::Rank, "flips one element of its first checked output"},
      {"collective", "never-join", Form::RankAtSize, "stays away from the ranks' arrival at a size"},
      {"collective", "hang", Form::RankAtSize, "arrives, then stops inside the timed iterations"},
      {"collective", "alloc", Form::Rank, "its buffer allocation fails"},
      {"collective", "async-error", Form::RankAtSize, "its transport is aborted under the peers, and it stays"},
      {"collective", "slow", Form::RankAtSize, "doubles every timed iteration (the job is 2x slower)"},
      {"ep", "wrong-element", Form::Rank, "flips one dispatched and one combined element"},
      {"pairs", "slow-rank", Form::Rank, "every exchange of that rank --fault-slowdown times slower (a slow rail)"},
      {"pairs", "slow-leaf", Form::Leaf, "every exchange of that leaf's ranks with another leaf slower (a bad uplink)"},
      {"pairs", "hang", Form::RankAtRound, "that rank stops at that round"},
      {"nvlink", "slow-pair", Form::RankPair, "every copy between the two ranks' GPUs --fault-slowdown times over"},
  };
  return entries;
}

std::string fault_forms(std::string_view workload) {
  const auto entries = entries_of(workload);
  std::string out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out += std::string(i == 0 ? "" : i + 1 == entries.size() ? " or " : ", ") + std::string(entries[i]->name) + ":" +
           form_text(entries[i]->form);
  }
  return out;
}

Planted parse_fault(std::string_view workload, const std::string& text, const std::string& where) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const auto entries = entries_of(workload);
  const auto known = std::find_if(entries.begin(), entries.end(), [&](const FaultEntry* e) { return e->name == name; });
  if (known == entries.end()) throw_usage(where + ": unknown fault '" + name + "' (" + fault_forms(workload) + ")");
  const FaultEntry& entry = **known;
  const std::string form = name + ":" + form_text(entry.form);
  const auto refuse = [&](const std::string& why) {
    throw_usage(where + ": '" + text + "' is not " + form + (why.empty() ? "" : " (" + why + ")"));
  };
  if (colon == std::string::npos) throw_usage(where + ": give the rank, e.g. " + name + ":1 (" + form + ")");
  Planted p;
  p.name = name;
  p.text = text;
  const std::string rest = text.substr(colon + 1);
  const auto at = rest.find('@');
  if (at != std::string::npos && entry.form != Form::RankAtSize && entry.form != Form::RankAtRound) {
    std::vector<std::string> names;
    for (const auto* e : entries)
      if (e->form == Form::RankAtSize) names.emplace_back(e->name);
    std::string takers;
    for (std::size_t i = 0; i < names.size(); ++i)
      takers += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    throw_usage(where + " " + text + ": @SIZE is for " + (takers.empty() ? "no fault of this command" : takers));
  }
  switch (entry.form) {
    case Form::Leaf:
      if (rest.empty()) refuse("a leaf of the job's topology");
      p.leaf = rest;
      return p;
    case Form::RankPair: {
      const auto comma = rest.find(',');
      if (comma == std::string::npos) refuse("two different ranks of one node");
      p.rank = catalog_rank(rest.substr(0, comma));
      p.other_rank = catalog_rank(rest.substr(comma + 1));
      if (p.rank < 0 || p.other_rank < 0 || p.rank == p.other_rank) refuse("two different ranks of one node");
      return p;
    }
    case Form::RankAtRound:
      p.rank = catalog_rank(rest.substr(0, at));
      if (at != std::string::npos) p.round = catalog_rank(rest.substr(at + 1));
      if (p.rank < 0 || p.round < 1) refuse("ROUND counted from 1");
      return p;
    case Form::Rank:
    case Form::RankAtSize: {
      const std::string rank = rest.substr(0, at);
      p.rank = catalog_rank(rank);
      if (p.rank < 0) throw_usage(where + ": '" + rank + "' is not a rank (" + form + ")");
      if (at != std::string::npos) p.from_bytes = parse_size(rest.substr(at + 1), where + " " + name + ":RANK@SIZE");
      return p;
    }
  }
  return p;
}

}  // namespace commsweep::faults
