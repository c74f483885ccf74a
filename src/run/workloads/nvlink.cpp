// Inside every node, every ordered GPU pair's NVLink bandwidth (copy engine and SM) and latency,
// all-to-one and one-to-all per GPU, judged against the node's median and the topology
// (`commsweep nvlink`; nvlink/ judges and prints, nvlink/gpu/ measures).
#include <sstream>

#include "core/error.hpp"
#include "nvlink/figures.hpp"
#include "nvlink/nvlink_json.hpp"
#include "nvlink/settings.hpp"
#include "run/nvlink_run.hpp"
#include "run/workload.hpp"

namespace commsweep {
namespace {

class NvlinkMeasurement final : public MeasurementOf<nvlink::NvlinkSettings> {
 public:
  NvlinkMeasurement(nvlink::NvlinkSettings s, const RunSettings& run) : MeasurementOf(std::move(s)), run_(run) {}
  void check(World& world) override { check_nvlink_job(world, config, run_.backend); }
  std::string what() const override { return "nvlink"; }
  std::vector<std::string> expected_workloads() const override { return {"nvlink"}; }
  double timeout_s() const override { return config.timeout_s; }
  void plan_document(DocumentKeeper& keeper) const override { plan_nvlink_document(keeper, config); }
  Outcome run(Stage& stage, report::Results&) override { return run_nvlink_stage(stage, config); }
  int run_offline() override { return judge_nvlink_file(config, run_); }

 private:
  RunSettings run_;  // --backend; --judge's --json, --expected, --html and --prometheus
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  nvlink::NvlinkSettings s;
  settings::apply(nvlink::nvlink_settings(), s, flags, document);
  s.timeout_s = run.timeout_s;
  return std::make_unique<NvlinkMeasurement>(std::move(s), run);
}

std::vector<const settings::Spec*> specs() { return nvlink::nvlink_settings().specs(); }

std::string help_intro() {
  return "Usage: mpirun -np GPUS commsweep nvlink [options]     (several nodes: -np N*GPUS -npernode GPUS)\n\n"
         "Measures the NVLinks inside every node, every node at once, one rank per GPU: every ordered GPU pair\n"
         "(src, dst) alone, the node's other GPUs idle: write (src's engine pushes into dst), read (dst pulls\n"
         "from src) and bidir (both push at once, both directions' bytes), by copy engine (cudaMemcpyAsync) and\n"
         "by SM (a kernel's 16-byte loads and stores through the peer pointer); the latency (half the round trip\n"
         "of a 4-byte flag through peer memory, SM); then every GPU as the target of all-to-one and the source\n"
         "of one-to-all (copy engine). The node's ranks map each other's GPU memory with CUDA IPC. Every copy is\n"
         "checked bit-exact on the receiver against the sender's data pattern.\n\n"
         "Each pair is judged against its node's median (every test) and against the topology (copy engine):\n"
         "NVML's active NVLinks x their rate (NVLink 4.0: 25 GB/s a link and direction, 18 links on H100/H200:\n"
         "450 GB/s); real copies reach about 80-87% of that, so the floor is 0.7. A slow pair is named with both\n"
         "GPUs (index, rank, PCI bus id) and the NVLink error counters of both over the run; a GPU with fewer\n"
         "active NVLinks than another of its node is named too.\n\n"
         "Output (rank 0): per node its GPUs and a matrix of ce_write and sm_write GB/s (rows src, columns dst;\n"
         "GB = 1e9 B), the medians, all-to-one and one-to-all, the findings; with several nodes a line per node\n"
         "(above 4 nodes only the nodes with findings show their matrices). Default size: one 8-GPU node's 56\n"
         "pairs in about 10 s (docs/nvlink.md).\n\n"
         "Examples:\n"
         "  mpirun -np 8 commsweep nvlink                                   # one node of 8 GPUs\n"
         "  mpirun -np 64 -npernode 8 commsweep nvlink --json nvlink.json --html nvlink.html\n"
         "  mpirun -np 8 commsweep nvlink -s 64M -n 10 --prometheus /var/lib/node_exporter/nvlink.prom\n"
         "  commsweep nvlink --judge nvlink.json --slow-below 0.95 --html again.html   # offline, no mpirun\n";
}

std::string help_end() {
  return "--json FILE: every node, GPU, pair and test, the matrices and verdicts (schema commsweep.nvlink/1,\n"
         "`commsweep schema nvlink`).\n\n"
         + measuring_exit_codes_help(/*slow=*/true) +
         "2: also no GPU to measure (a build without CUDA, --backend mpi, a rank without a GPU, two ranks on\n"
         "one GPU). 6: a FAIL in the health snapshots around the run (summary.health_fail). 8: wrong bytes.\n"
         "10: a slow pair or GPU, or a GPU with NVLinks missing (as commsweep pairs' slow pair).\n";
}

// A baseline judges its --json file's pairs under this test name (nvlink/figures.hpp).
std::vector<std::string> baseline_tests() { return {"nvlink"}; }

}  // namespace

const Workload& nvlink_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "nvlink";
    w.command = "nvlink";
    w.summary = "inside each node: every GPU pair's NVLink bandwidth and latency, slow links named (--help)";
    w.order = 35;
    w.specs = specs;
    w.sections = {{nvlink::kOptionsSection, "Options"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.baseline_tests = baseline_tests;
    w.offline_flag = "judge";
    w.schema = nvlink::kSchema;
    w.figures = nvlink::sheet_from_json;
    return w;
  }();
  return w;
}

}  // namespace commsweep
