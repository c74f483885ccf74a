#include "run/run_settings.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace {

using settings::Given;
using settings::Value;
using Config = RunSettings;

constexpr auto entry = &settings::entry<Config>;
constexpr auto entry_of = &settings::entry_of<Config>;

// --backend's choices, in BackendChoice's order.
settings::Type backend_type() { return settings::choice({"auto", "nccl", "mpi"}, "backend", "nccl, mpi or auto"); }

void apply_transport(Config& c, const Value& v, const Given&) {
  try {
    c.fabric.required = fabric::parse_required_transport(v.text);
  } catch (const std::invalid_argument&) {
    throw_usage("--require-transport: '" + v.text + "' is not ib, roce, socket or nvlink");
  }
}

void apply_bind(Config& c, const Value& v, const Given&) {
  if (v.text != "auto" && v.text != "none") throw_usage("--bind: '" + v.text + "' is not auto or none");
  c.fabric.bind = v.text == "auto" ? BindMode::Auto : BindMode::None;
}

// A transport requirement is NCCL's: the mpi backend makes no NCCL connection to verify.
void finish(Config& c, const settings::Origins&) {
  if (c.backend == BackendChoice::Mpi && c.fabric.requires_transport()) {
    throw_usage(transport_needs_nccl(c.fabric, "--backend mpi"));
  }
}

settings::Table<Config> make_table() {
  const char* run = kRunSettingsSection;
  const char* fabric = kFabricSection;
  return {"run", {
      entry("backend", 0, "", backend_type(), "auto",
            "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU", run,
            [](Config& c, const Value& v, const Given&) { c.backend = static_cast<BackendChoice>(v.whole); }),
      entry_of(settings::shared::json("write the results as JSON to this file (atomically)", run),
            [](Config& c, const Value& v, const Given&) {
              if (v.text.empty()) throw_usage("--json: give a file name");
              c.json_path = v.text;
            }),
      entry_of(settings::shared::shape(
                   "the node shape (e.g. BM.GPU.H100.8; else COMMSWEEP_SHAPE or the node's instance-type label): "
                   "NCCL_TOPO_FILE is set to /etc/commsweep/topology/SHAPE.xml after checking it against the node",
                   run),
            [](Config& c, const Value& v, const Given&) {
              if (v.text.empty()) throw_usage("--shape: give a shape, e.g. BM.GPU.H100.8");
              c.topology.shape = v.text;
            }),
      entry("force", 0, "", settings::presence(), std::nullopt, "run with a topology file that does not match the node",
            run, [](Config& c, const Value& v, const Given&) { c.topology.force = v.present; }),
      entry_of(settings::shared::timeout(
                   "300",
                   "seconds any phase may take (set-up, each step of a sweep) before the job is ended (exit code 4); "
                   "given to a suite, it overrides every sweep's key \"timeout\"",
                   run),
            [](Config& c, const Value& v, const Given&) { c.timeout_s = static_cast<double>(v.whole); }),
      entry("no-preflight", 0, "", settings::presence(), std::nullopt,
            "skip the brief fabric preflight before the run (commsweep preflight)", fabric,
            [](Config& c, const Value& v, const Given&) { c.fabric.preflight = !v.present; }),
      entry_of(settings::shared::require_transport(
                   std::nullopt,
                   "ib, roce, socket or nvlink: NCCL must use it (its own INFO lines say, read after set-up); anything "
                   "else stops the run before measuring, exit code 6 (nccl backend only: with mpi a usage error)",
                   fabric),
               apply_transport),
      entry_of(settings::shared::require_gdr("NCCL's network connections must use GPUDirect RDMA, else exit code 6 "
                                             "before measuring (nccl backend only: with mpi a usage error)",
                                             fabric),
            [](Config& c, const Value& v, const Given&) { c.fabric.require_gdr = v.present; }),
      entry_of(settings::shared::bind("auto: bind each rank to the CPUs of its GPU's NUMA node (hwloc); none: leave "
                                      "the binding to the launcher",
                                      fabric),
               apply_bind),
      entry_of(settings::shared::health_thresholds(
                   "judge the health counters with the limits of this YAML file (default: "
                   "COMMSWEEP_HEALTH_THRESHOLDS, else the built-in table, which results/health-thresholds.yaml holds; "
                   "docs/health.md); a bad file stops the run before measuring, exit code 2",
                   fabric),
            [](Config& c, const Value& v, const Given&) { c.fabric.health_thresholds = v.text; }),
      entry_of(settings::shared::expected(
                   "judge each collective row's busbw, each ep phase's time and each nvlink pair's bandwidths and "
                   "latency (pairs has no expected figures yet) against the expected figures of this YAML file over "
                   "the built-in ones (default: COMMSWEEP_EXPECTED, else results/expected/ as built in; commsweep "
                   "expected lists them, docs/expected.md); a figure below an entry's FAIL floor is exit code 10; a "
                   "bad file stops the run before measuring, exit code 2",
                   fabric),
            [](Config& c, const Value& v, const Given&) { c.fabric.expected = v.text; }),
      entry("health-verbose", 0, "", settings::presence(), std::nullopt,
            "print every health finding, INFO included, one line each (the block prints one line per node and "
            "component class with a WARN or FAIL)",
            fabric, [](Config& c, const Value& v, const Given&) { c.fabric.health_verbose = v.present; }),
  }, finish};
}

}  // namespace

const settings::Table<RunSettings>& run_settings() {
  static const settings::Table<RunSettings> table = make_table();
  return table;
}

RunSettings read_run_settings(const settings::Flags& flags, const settings::DocumentEntry* document) {
  RunSettings s;
  settings::apply(run_settings(), s, flags, document);
  return s;
}

}  // namespace commsweep
