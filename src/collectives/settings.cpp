#include "collectives/settings.hpp"

#include <algorithm>
#include <iterator>

#include "collectives/collective_test.hpp"
#include "core/strings.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "faults/catalog.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace {

using settings::Given;
using settings::Origins;
using settings::Type;
using settings::Value;
using Config = CollectiveSettings;

// --fault (faults/catalog.hpp: the one table and parser of every workload's faults) as the
// sweep's Fault (core/sweep_config.hpp), read by faults/sweep_faults.hpp.
void apply_fault(Config& c, const Value& v, const Given& g) {
  const faults::Planted p = faults::parse_fault("collective", v.text, g.where);
  static constexpr std::pair<const char*, Fault::Kind> kinds[] = {
      {"wrong-element", Fault::Kind::WrongElement}, {"never-join", Fault::Kind::NeverJoin},
      {"hang", Fault::Kind::Hang},                  {"alloc", Fault::Kind::Alloc},
      {"async-error", Fault::Kind::AsyncError},     {"slow", Fault::Kind::Slow}};
  for (const auto& [name, kind] : kinds)
    if (p.name == name) c.sweep.fault = Fault{kind, p.rank, p.from_bytes};
}

std::vector<std::string> type_names() {
  std::vector<std::string> names;
  for (const auto t : all_data_types()) names.emplace_back(name_of(t));
  return names;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto op : all_red_ops()) names.emplace_back(name_of(op));
  return names;
}

std::vector<std::string> test_names() {
  std::vector<std::string> names;
  for (const auto* t : collective_tests()) names.emplace_back(t->name);
  return names;
}

// "broadcast, reduce and gather": the collectives that take -r, from their descriptors.
std::string rooted_in_words() {
  std::vector<std::string> rooted;
  for (const auto* t : collective_tests()) {
    if (t->rooted) rooted.emplace_back(t->name);
  }
  std::string out;
  for (std::size_t i = 0; i < rooted.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == rooted.size() ? " and " : ", ") + rooted[i];
  }
  return out;
}

std::string spaced(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

template <typename T>
std::optional<int> index_of(const std::vector<T>& all, std::optional<T> found) {
  if (!found) return std::nullopt;
  const auto it = std::find(all.begin(), all.end(), *found);
  if (it == all.end()) return std::nullopt;
  return static_cast<int>(it - all.begin());
}

Type types_type() {
  Type t = settings::list_of(settings::choice(type_names(), "type"), false);
  t.all = true;
  t.alias = [](const std::string& s) { return index_of(all_data_types(), parse_data_type(s)); };
  return t;
}

Type ops_type() {
  Type t = settings::list_of(settings::choice(op_names(), "operator"), false);
  t.all = true;
  t.alias = [](const std::string& s) { return index_of(all_red_ops(), parse_red_op(s)); };
  return t;
}

// A test name (or alias, or all) per item; a suite's key "tests".
void apply_tests(Config& c, const Value& v, const Given& g) {
  c.tests.clear();
  for (const auto& item : v.items) {
    if (item.text == "all") {
      for (const auto* t : collective_tests()) c.tests.emplace_back(t->name);
      continue;
    }
    const auto* t = find_collective_test(item.text);
    if (t == nullptr) {
      const std::string guess = closest_name(item.text, test_names());
      throw_usage(g.where + ": unknown test '" + item.text + "'" +
                  (guess.empty() ? std::string() : " (did you mean '" + guess + "'?)") +
                  "; the tests are: all " + spaced(test_names()));
    }
    c.tests.emplace_back(t->name);
  }
}

constexpr auto entry = &settings::entry<Config>;

int to_int(const Value& v) { return static_cast<int>(v.whole); }

// -b <= -e, -f 1 with its step, no sweep of only 0 bytes, not too many sizes.
void finish(Config& config, const Origins& o) {
  SweepConfig& c = config.sweep;
  if (c.min_bytes > c.max_bytes) {
    throw_usage(o.name("minbytes") + " (" + o.shown("minbytes") + ") is greater than " + o.name("maxbytes") +
                " (" + o.shown("maxbytes") + ")");
  }
  const bool stepbytes = o.find("stepbytes") != nullptr;
  if (stepbytes) {
    if (c.step_bytes == 0) throw_usage(o.name("stepbytes") + ": the step must be greater than 0");
  } else if (c.step_factor == 1 && c.min_bytes != c.max_bytes) {
    throw_usage(o.name("stepfactor") + " 1 makes a linear sweep: give its step with " + o.name("stepbytes"));
  }
  if (stepbytes && !o.given("stepfactor")) c.step_factor = 1;
  // 0 times a factor stays 0: the sweep would be the one size 0, which has no element to move.
  if (c.min_bytes == 0 && c.step_factor > 1) {
    throw_usage(o.name("minbytes") + " 0 with " + o.name("stepfactor") + " " + o.shown("stepfactor") +
                " sweeps only 0 bytes (0 times a factor stays 0): give -b 8 or more, or a linear "
                "sweep (-f 1 -i STEP)");
  }
  if (c.show_iterations && !c.per_iteration) {
    throw_usage(o.name("show-iterations") + " shows the per-iteration statistics, which " + o.name("per-iteration") +
                " off does not keep: give one or the other");
  }
  if (const std::uint64_t n = size_count(c); n > kMaxSizes) {
    throw_usage(o.name("stepbytes") + ": " + o.shown("stepbytes") + " steps from -b to -e make " +
                std::to_string(n) + " sizes (at most " + std::to_string(kMaxSizes) + "); give a larger step");
  }
}

settings::Table<Config> make_table() {
  const char* sweep = kSweepSection;
  const char* run = kRunSection;
  const std::string fault_help =
      "testing only: " + faults::fault_forms("collective") +
      "; @SIZE: from the first size of at least SIZE on (slow: that rank takes twice as long per timed "
      "iteration, so the job does)";
  return {"collective", {
      entry("", 0, "tests", settings::list_of(settings::text(), false), "all_reduce",
            "the tests: " + spaced(test_names()) + ", or all (on the command line, the words before the flags)",
            sweep, apply_tests),
      entry("minbytes", 'b', "min_bytes", settings::size(), "8", "smallest message size, e.g. 8, 64K, 1M", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.min_bytes = v.count; }),
      entry("maxbytes", 'e', "max_bytes", settings::size(), "128M", "largest message size, e.g. 8G", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.max_bytes = v.count; }),
      entry("stepbytes", 'i', "step_bytes", settings::size(), std::nullopt, "linear step between sizes (with -f 1)",
            sweep, [](Config& c, const Value& v, const Given&) { c.sweep.step_bytes = v.count; }),
      entry("stepfactor", 'f', "step_factor", settings::whole(1, 1 << 20), "2",
            "multiply each size by this (> 1), or 1 for -i steps", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.step_factor = static_cast<std::uint64_t>(v.whole); }),
      entry("iters", 'n', "iters", settings::whole(1, 1 << 24), "20", "timed iterations per size", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.iters = to_int(v); }),
      entry("warmup_iters", 'w', "warmup", settings::whole(0, 1 << 24), "5", "untimed warm-up iterations per size",
            sweep, [](Config& c, const Value& v, const Given&) { c.sweep.warmup = to_int(v); }),
      entry("check", 'c', "check", settings::whole(0, 1000), "1",
            "verify every output element bit-exact N times per size (0: off)", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.check = to_int(v); }),
      entry("datatype", 'd', "dtypes", types_type(), "float", spaced(type_names()) + ", a comma list, or all", sweep,
            [](Config& c, const Value& v, const Given&) {
              c.sweep.types.clear();
              for (const auto& i : v.items) c.sweep.types.push_back(all_data_types()[static_cast<std::size_t>(i.whole)]);
            }),
      entry("op", 'o', "ops", ops_type(), "sum", spaced(op_names()) + ", a comma list, or all", sweep,
            [](Config& c, const Value& v, const Given&) {
              c.sweep.ops.clear();
              for (const auto& i : v.items) c.sweep.ops.push_back(all_red_ops()[static_cast<std::size_t>(i.whole)]);
            }),
      entry("root", 'r', "root", settings::whole(0, 1 << 30), "0", "root rank of " + rooted_in_words(), sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.root = to_int(v); }),
      entry("blocking", 'z', "blocking", settings::whole(0, 1), "0", "1: wait for each collective before the next",
            sweep, [](Config& c, const Value& v, const Given&) { c.sweep.blocking = v.whole == 1; }),
      entry("cudagraph", 'G', "cudagraph", settings::whole(0, 1 << 20), "0",
            "N > 0: capture the iterations in a CUDA graph and launch it N times (nccl)", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.graph_launches = to_int(v); }),
      entry("average", 'a', "average", settings::whole(0, 3), "1",
            "time shown: 0 rank 0, 1 mean over ranks, 2 min, 3 max", sweep,
            [](Config& c, const Value& v, const Given&) { c.sweep.average = static_cast<Average>(v.whole); }),
      // A suite runs each sweep once: -N is the command line's.
      entry("run_cycles", 'N', "", settings::whole(0, 1 << 30), "1", "run the sweep N times (0: until interrupted)",
            sweep, [](Config& c, const Value& v, const Given&) { c.sweep.cycles = to_int(v); }),
      entry("timer", 0, "timer", settings::choice({"host", "device"}, "timer", "host or device"), "host",
            "host: a clock around issue and completion after a barrier, as nccl-tests; device: CUDA events on the "
            "stream (nccl), without launch and synchronisation latency",
            run, [](Config& c, const Value& v, const Given&) { c.sweep.device_timer = v.whole == 1; }),
      entry("buffers", 0, "buffers", settings::choice({"cold", "warm"}, "choice", "cold or warm"), "cold",
            "cold: each iteration uses the next slice of buffers sized for -e, as nccl-tests (inputs not left in "
            "cache by the last iteration); warm: the same bytes every iteration (cache-resident where they fit)",
            run, [](Config& c, const Value& v, const Given&) { c.sweep.buffers = static_cast<Buffers>(v.whole); }),
      entry("per-iteration", 0, "per_iteration", settings::choice({"on", "off"}, "choice", "on or off"), "on",
            "on: keep every timed iteration's time per rank (on nccl NCCL's kernels' own timestamps through "
            "commsweep's profiler plugin, else CUDA events between the iterations; the host clock on mpi) for "
            "p50/p95/p99, spikes and the per-rank maximum in the JSON; off: one span per row, to measure what "
            "keeping them costs (docs/iterations-cost.md)",
            run, [](Config& c, const Value& v, const Given&) { c.sweep.per_iteration = v.whole == 0; }),
      entry("show-iterations", 0, "show_iterations", settings::presence(), std::nullopt,
            "print the per-iteration columns after nccl-tests' (per half: i_min i_p50 i_p99 i_max i_cv% i_1st and "
            "spikes over 1.5 x p50, then each half's slowest rank); the JSON has them always",
            run, [](Config& c, const Value& v, const Given&) { c.sweep.show_iterations = v.present; }),
      entry("show-algo", 0, "show_algo", settings::presence(), std::nullopt,
            "record NCCL's algorithm, protocol and channels of each row (commsweep's NCCL profiler plugin, loaded only "
            "then: loaded, it costs small collectives up to 3 us an iteration) and print them after nccl-tests' "
            "columns; n/a on the mpi backend; without it the JSON says \"not recorded\"",
            run, [](Config& c, const Value& v, const Given&) { c.sweep.show_algo = v.present; }),
      settings::entry_of<Config>(
          settings::shared::show_expected(
              "print each row's expected busbw for this hardware and each half's ratio to it after nccl-tests' "
              "columns (results/expected/, --expected; commsweep expected lists them, docs/expected.md); \"-\" "
              "where no entry applies; the JSON has them always",
              run),
          [](Config& c, const Value& v, const Given&) { c.sweep.show_expected = v.present; }),
      entry("seed", 0, "seed", settings::whole(0, INT64_MAX), std::nullopt, "seed of the data pattern", run,
            [](Config& c, const Value& v, const Given&) { c.sweep.seed = static_cast<std::uint64_t>(v.whole); }),
      settings::entry_of<Config>(settings::shared::fault(fault_help, run), apply_fault),
  }, finish};
}

}  // namespace

const settings::Table<CollectiveSettings>& collective_settings() {
  static const settings::Table<CollectiveSettings> table = make_table();
  return table;
}

void check_collective_backend(const SweepConfig& c, const Origins& o, bool backend_is_mpi) {
  if (!backend_is_mpi) return;
  if (c.device_timer) {
    const bool document = o.find("timer") && o.find("timer")->from_document();
    throw_usage(o.name("timer") + (document ? ": " : " ") + "device needs the nccl backend (--backend mpi times with MPI_Wtime)");
  }
  if (c.graph_launches > 0) {
    throw_usage(o.name("cudagraph") + " needs the nccl backend (--backend mpi was given)");
  }
}

}  // namespace commsweep
