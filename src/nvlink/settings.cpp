#include "nvlink/settings.hpp"

#include "core/error.hpp"
#include "faults/catalog.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep::nvlink {
namespace {

using settings::Given;
using settings::Value;
using Config = NvlinkSettings;

constexpr auto entry = &settings::entry<Config>;

int to_int(const Value& v) { return static_cast<int>(v.whole); }

void apply_fault(Config& o, const Value& v, const Given& g) {
  const faults::Planted p = faults::parse_fault("nvlink", v.text, g.where);  // slow-pair, its one fault
  o.slow_pair_a = p.rank;
  o.slow_pair_b = p.other_rank;
  o.fault = p.text;
}

settings::Table<Config> make_table() {
  const char* shown = kOptionsSection;
  const char* hidden = kHiddenSection;
  return settings::Table<Config>{"nvlink", {
      entry("size", 's', "size", settings::size(), "256M",
            "bytes per copy (K, M, G: powers of 1024); a multiple of 16 B (the SM copies' 16-byte accesses)", shown,
            [](Config& o, const Value& v, const Given& g) {
              if (v.count < 16 || v.count % 16 != 0)
                throw_usage(g.where + ": " + std::to_string(v.count) + " B is not a positive multiple of 16 B");
              o.bytes = v.count;
            }),
      entry("iters", 'n', "iters", settings::whole(1, 1 << 20), "20", "timed copies per test", shown,
            [](Config& o, const Value& v, const Given&) { o.iters = to_int(v); }),
      entry("warmup", 'w', "warmup", settings::whole(0, 1 << 20), "5", "untimed copies per test before them", shown,
            [](Config& o, const Value& v, const Given&) { o.warmup = to_int(v); }),
      entry("latency-iters", 0, "latency_iters", settings::whole(2, 1 << 24), "2000",
            "round trips of the latency test's flag per pair", shown,
            [](Config& o, const Value& v, const Given&) { o.latency_iters = to_int(v); }),
      entry("slow-below", 0, "slow_below", settings::number(0, 1, true), "0.9",
            "a pair is slow below this fraction of its node's median, in any test (0 < F <= 1)", shown,
            [](Config& o, const Value& v, const Given&) { o.slow_fraction = v.number; }),
      entry("expected-floor", 0, "expected_floor", settings::number(0, 1, true), "0.7",
            "a pair is slow below this fraction of the topology's rate (NVML's NVLinks x their rate), in the "
            "copy-engine tests (0 < F <= 1)",
            shown, [](Config& o, const Value& v, const Given&) { o.expected_floor = v.number; }),
      entry("latency-over", 0, "latency_over", settings::number(1, 1e6), "2",
            "a pair is slow above this many times its node's median latency", shown,
            [](Config& o, const Value& v, const Given&) { o.latency_over = v.number; }),
      entry("seed", 0, "seed", settings::unsigned64(), std::nullopt, "seed of the data pattern", shown,
            [](Config& o, const Value& v, const Given&) { o.seed = v.count; }),
      settings::entry_of<Config>(
          settings::shared::show_expected(
              "print each pair's expected figures for this hardware and its share of them, test by test, after "
              "its node's matrices (results/expected/nvlink-pairs.yaml, --expected; docs/expected.md); \"-\" "
              "where no entry applies; the JSON has them always",
              shown),
          [](Config& o, const Value& v, const Given&) { o.show_expected = v.present; }),
      entry("judge", 0, "", settings::text(), std::nullopt,
            "judge this nvlink results file (--json of a run) again with the thresholds given here, print its "
            "report and write --json, --html, --prometheus; no MPI, no mpirun",
            shown, [](Config& o, const Value& v, const Given& g) {
              if (v.text.empty()) throw_usage(g.where + ": give a file name");
              o.judge_path = v.text;
            }),
      settings::entry_of<Config>(settings::shared::fault("testing only: " + faults::fault_forms("nvlink"), hidden),
                                 apply_fault),
      entry("fault-slowdown", 0, "", settings::whole(2, 1000), std::nullopt,
            "testing only: how many copies a planted slow pair makes per timed copy", hidden,
            [](Config& o, const Value& v, const Given&) { o.fault_slowdown = to_int(v); }),
  }, nullptr};
}

}  // namespace

const settings::Table<NvlinkSettings>& nvlink_settings() {
  static const settings::Table<NvlinkSettings> table = make_table();
  return table;
}

}  // namespace commsweep::nvlink
