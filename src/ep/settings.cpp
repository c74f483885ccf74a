#include "ep/settings.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pattern/ep_pattern.hpp"  // kFp8BlockElements
#include "core/error.hpp"
#include "ep/implementation.hpp"
#include "faults/catalog.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep::ep {
namespace {

using settings::Given;
using settings::Origins;
using settings::Type;
using settings::Value;

// Bounds that keep every product (tokens x hidden x ranks) far from overflow; DeepEP's own
// tests stay below 4096 tokens, hidden 7168, top-k 8 and 288 experts.
constexpr long long kMaxTokens = 1 << 24;
constexpr long long kMaxHidden = 1 << 20;
constexpr long long kMaxTopk = 1024;
constexpr long long kMaxExperts = 1 << 20;
constexpr long long kMaxIters = 1 << 24;

template <typename T>
std::vector<std::string> names(const std::vector<T>& all) {
  std::vector<std::string> out;
  for (const T v : all) out.emplace_back(name_of(v));
  return out;
}

Type ints(long long min, long long max) { return settings::list_of(settings::whole(min, max), true); }
Type names_type(std::vector<std::string> n) { return settings::list_of(settings::choice(std::move(n)), true); }

std::vector<int> int_items(const Value& v) {
  std::vector<int> out;
  for (const auto& i : v.items) out.push_back(static_cast<int>(i.whole));
  return out;
}

template <typename T>
std::vector<T> picked(const Value& v, const std::vector<T>& all) {
  std::vector<T> out;
  for (const auto& i : v.items) out.push_back(all[static_cast<std::size_t>(i.whole)]);
  return out;
}

// A routing file named in a document is relative to the document's folder, so that the two
// travel together.
void apply_routing_file(EpConfig& c, const Value& v, const Given& g) {
  std::string path = v.text;
  if (path.empty()) throw_usage(g.where + ": give a file name");
  if (g.from_document() && std::filesystem::path(path).is_relative()) {
    path = (std::filesystem::path(g.folder) / path).string();
  }
  std::ifstream in(path);
  if (std::filesystem::is_directory(path) || !in) {
    throw_usage(g.where + ": cannot read the routing file '" + path + "'");
  }
  c.routing_file = path;
}

void apply_fault(EpConfig& c, const Value& v, const Given& g) {
  c.fault_wrong_rank = faults::parse_fault("ep", v.text, g.where).rank;  // wrong-element, its one fault
}

// The routing file goes with --routing file; fp8 needs whole 128-element blocks; no token can
// pick more distinct experts than there are.
void finish(EpConfig& c, const Origins& o) {
  bool file_routing = false;
  for (const auto r : c.routings) file_routing = file_routing || r == RoutingKind::File;
  if (o.find("routing-file") && !file_routing) {
    throw_usage(o.name("routing-file") + " is read only with " + o.name("routing") + " file");
  }
  if (!o.find("routing-file") && file_routing) {
    throw_usage(o.name("routing") + " file needs --routing-file PATH (the routing table)");
  }
  bool fp8 = false;
  for (const auto d : c.dtypes) fp8 = fp8 || d == EpDtype::Fp8;
  for (const int h : c.hidden) {
    if (fp8 && h % kFp8BlockElements != 0) {
      throw_usage(o.name("hidden") + ": " + std::to_string(h) + " is not a multiple of " +
                  std::to_string(kFp8BlockElements) + ", which fp8 (" + o.name("dtype") +
                  ") needs: one fp32 scale per block of " + std::to_string(kFp8BlockElements) +
                  " elements, as DeepEP");
    }
  }
  for (const int k : c.topk) {
    for (const int e : c.experts) {
      if (k > e) {
        throw_usage(o.name("topk") + ": " + std::to_string(k) + " is more than the experts (" + o.name("experts") +
                    " " + std::to_string(e) + "): a token picks distinct experts");
      }
    }
  }
}

// "how the exchange is done (below): alltoallv, lsa; alltoallv,lsa runs both on every case, side
// by side", from the registered implementations.
std::string impl_help() {
  const auto all = ep_implementation_names();
  std::string listed, together;
  for (const auto& n : all) {
    listed += (listed.empty() ? "" : ", ") + n;
    together += (together.empty() ? "" : ",") + n;
  }
  return "how the exchange is done (below): " + listed + "; " + together + " runs " +
         (all.size() == 2 ? "both" : "each") + " on every case, side by side";
}

constexpr auto entry = &settings::entry<EpConfig>;

// An axis's default as the table shows and reads it ("128,256,512"), from EpConfig's own
// initializer: the one place a default is written.
std::string default_of(std::vector<int> EpConfig::*axis) {
  const EpConfig defaults;  // named: a range over a temporary's member through .* would dangle
  std::string out;
  for (const int v : defaults.*axis) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

settings::Table<EpConfig> make_table() {
  const char* axes = kAxesSection;
  const char* run = kSettingsSection;
  const auto routings = names(all_routing_kinds());
  std::string routing_help;
  for (const auto& r : routings) routing_help += (routing_help.empty() ? "" : " ") + r;
  settings::Table<EpConfig> table{"ep", {
      entry("tokens", 0, "tokens", ints(0, kMaxTokens), default_of(&EpConfig::tokens), "tokens per rank", axes,
            [](EpConfig& c, const Value& v, const Given&) { c.tokens = int_items(v); }),
      entry("hidden", 0, "hidden", ints(1, kMaxHidden), default_of(&EpConfig::hidden), "elements per token (a multiple of 8: 16-byte vectors)",
            axes, [](EpConfig& c, const Value& v, const Given&) { c.hidden = int_items(v); }),
      entry("topk", 0, "topk", ints(1, kMaxTopk), default_of(&EpConfig::topk), "experts per token", axes,
            [](EpConfig& c, const Value& v, const Given&) { c.topk = int_items(v); }),
      entry("experts", 0, "experts", ints(1, kMaxExperts), default_of(&EpConfig::experts),
            "experts in all; experts / ranks on each rank (must divide)", axes,
            [](EpConfig& c, const Value& v, const Given&) { c.experts = int_items(v); }),
      entry("dtype", 0, "dtype", names_type(names(all_ep_dtypes())), "bf16",
            "dispatch type: bf16, fp8 (e4m3, one fp32 scale per 128 elements; hidden a multiple of 128)", axes,
            [](EpConfig& c, const Value& v, const Given&) { c.dtypes = picked(v, all_ep_dtypes()); }),
      entry("routing", 0, "routing", names_type(routings), "randn", routing_help + " (below)", axes,
            [](EpConfig& c, const Value& v, const Given&) { c.routings = picked(v, all_routing_kinds()); }),
      entry("ep-impl", 0, "impl", names_type(ep_implementation_names()), "alltoallv", impl_help(), axes,
            [](EpConfig& c, const Value& v, const Given&) { c.impls = picked(v, ep_implementation_names()); }),
      entry("skew", 0, "skew", settings::positive(), "1.0",
            "skewed routing: expert e drawn with weight 1 / (e + 1)^S, S > 0", run,
            [](EpConfig& c, const Value& v, const Given&) { c.skew = v.number; }),
      entry("routing-file", 0, "routing_file", settings::text(), std::nullopt,
            "the routing table of --routing file (format below; in a suite file relative to its folder)", run,
            apply_routing_file),
      entry("topk-groups", 0, "topk_groups", settings::whole(0, kMaxExperts), "0",
            "N > 0: a token's experts lie on at most N nodes (DeepEP's num_topk_groups); 0 off", run,
            [](EpConfig& c, const Value& v, const Given&) { c.topk_groups = static_cast<int>(v.whole); }),
      entry("iters", 'n', "iters", settings::whole(1, kMaxIters), "20", "timed iterations per row", run,
            [](EpConfig& c, const Value& v, const Given&) { c.iters = static_cast<int>(v.whole); }),
      entry("warmup_iters", 'w', "warmup", settings::whole(0, kMaxIters), "5", "untimed warm-up iterations per row",
            run, [](EpConfig& c, const Value& v, const Given&) { c.warmup = static_cast<int>(v.whole); }),
      entry("check", 'c', "check", settings::whole(0, 1), "1",
            "1: verify every dispatched and combined element bit-exact; 0: off (#wrong N/A)", run,
            [](EpConfig& c, const Value& v, const Given&) { c.check = v.whole == 1; }),
      entry("seed", 0, "seed", settings::unsigned64(), std::nullopt, "seed of the routing and the token data", run,
            [](EpConfig& c, const Value& v, const Given&) { c.seed = v.count; }),
      settings::entry_of<EpConfig>(
          settings::shared::show_expected(
              "print each phase's expected time for this hardware and its share of it (expected / time) after "
              "the table's columns (results/expected/ep.yaml, --expected; docs/expected.md); \"-\" where no entry "
              "applies; the JSON has them always",
              run),
          [](EpConfig& c, const Value& v, const Given&) { c.show_expected = v.present; }),
  }, finish};
  // Each implementation's own settings (EpImplementation::settings), after the run's.
  for (const EpImplementation* impl : ep_implementations()) {
    for (settings::Spec spec : impl->settings) {
      spec.section = run;
      const std::string key = spec.key;
      table.settings.push_back(settings::entry_of<EpConfig>(
          std::move(spec), [key](EpConfig& c, const Value& v, const Given&) { c.impl_settings[key] = v; }));
    }
  }
  table.settings.push_back(settings::entry_of<EpConfig>(
      settings::shared::fault(
          "testing only: " + faults::fault_forms("ep") + " flips one dispatched and one combined element on RANK", run),
      apply_fault));
  return table;
}

}  // namespace

const settings::Table<EpConfig>& ep_settings() {
  static const settings::Table<EpConfig> table = make_table();
  return table;
}

}  // namespace commsweep::ep
