#include "run/nvlink_run.hpp"

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "core/strings.hpp"
#include "faults/nvlink_faults.hpp"
#include "judge/outcomes.hpp"
#include "nvlink/judge.hpp"
#include "nvlink/nvlink_json.hpp"
#include "nvlink/render.hpp"
#include "nvlink/figures.hpp"
#include "output/output_file.hpp"
#include "nvlink/gpu/measure_node.hpp"
#include "report/json.hpp"
#include "run/expected_run.hpp"
#include "run/gpu_window_observer.hpp"
#include "run/report_files.hpp"
#include "run/results_keeper.hpp"
#include "runtime/termination.hpp"

namespace commsweep {
namespace {

// What the keeper of `commsweep nvlink --json` holds (run/document_keeper.hpp): the nodes'
// results once gathered, else the settings only (every node measures at once and reports at the
// end: a job ended before that leaves no file, and says so; a signal, the planned document).
struct NvlinkDocument {
  using Record = nvlink::NvlinkRun;
  static constexpr const char* kUnit = "node";
  static std::size_t measured(const Record& r) { return r.nodes.size(); }
  static nlohmann::json document(const Record& r) { return nvlink::to_json(r, nvlink::analyse(r)); }
  static void update(Record& kept, const Record& now) { kept = now; }
};

// What the results file records of the settings.
nvlink::RunConfig recorded(const nvlink::NvlinkSettings& s) {
  nvlink::RunConfig r;
  r.bytes = s.bytes;
  r.iters = s.iters;
  r.warmup = s.warmup;
  r.latency_iters = s.latency_iters;
  r.slow_fraction = s.slow_fraction;
  r.expected_floor = s.expected_floor;
  r.latency_over = s.latency_over;
  r.fault = s.fault;
  return r;
}

// Rank 0's TEXT on every rank.
std::string shared_from_rank0(World& world, std::string text, double timeout_s) {
  const Phase phase{"nvlink: the job's check", Deadline::after(timeout_s)};
  long long size = static_cast<long long>(text.size());
  world.broadcast(&size, sizeof size, 0, phase);
  text.resize(static_cast<std::size_t>(size));
  if (size > 0) world.broadcast(text.data(), static_cast<int>(size), 0, phase);
  return text;
}

// This rank's GPU (its PCI bus id), or why it has none.
std::string gpu_or_why(const World& world) {
  const std::string why = p2p::why_no_gpu_here();
  return why.empty() ? "gpu " + p2p::gpu_of_local_rank(world.local_rank()) : "none " + why;
}

// Rank 0: the first rank without a GPU, or two ranks of a node on one GPU; "" when none.
std::string job_problem(const World& world, const std::vector<std::string>& gpus) {
  std::map<std::pair<int, std::string>, int> owner;
  for (int r = 0; r < world.size(); ++r) {
    const std::string& g = gpus[static_cast<std::size_t>(r)];
    const std::string where = "rank " + std::to_string(r) + " (host " + world.hosts_by_rank()[r] + ")";
    if (g.rfind("none ", 0) == 0) {
      const std::string why = g.substr(5);
      const bool no_cuda = why.find("without CUDA") != std::string::npos;
      return "nvlink: " + where + ": " + why +
             ". nvlink copies between the GPUs of a node: run it under mpirun with one rank per GPU on GPU nodes" +
             (no_cuda ? ", from a build with CUDA (-DCOMMSWEEP_CUDA=ON)" : "");
    }
    const auto [it, fresh] = owner.emplace(std::make_pair(world.node_of(r), g.substr(4)), r);
    if (!fresh) {
      return "nvlink: ranks " + std::to_string(it->second) + " and " + std::to_string(r) + " of host " +
             world.hosts_by_rank()[r] + " drive the same GPU (" + g.substr(4) +
             "): run one rank per GPU (mpirun -np GPUS, or -npernode GPUS on several nodes)";
    }
  }
  return "";
}

void check_fault(const World& world, const nvlink::NvlinkSettings& s) {
  if (s.slow_pair_a < 0) return;
  if (s.slow_pair_a >= world.size() || s.slow_pair_b >= world.size()) {
    throw_usage("nvlink: --fault " + s.fault + " names a rank outside this job of " + count_of(world.size(), "rank"));
  }
  if (world.node_of(s.slow_pair_a) != world.node_of(s.slow_pair_b)) {
    throw_usage("nvlink: --fault " + s.fault + ": ranks " + std::to_string(s.slow_pair_a) + " and " +
                std::to_string(s.slow_pair_b) + " are on different nodes (a pair is inside one node)");
  }
}

// Rank 0: the ranks' parts as the nodes' records (each node's GPUs in rank order).
std::vector<nvlink::NodeMatrix> assemble(const World& world, const std::vector<std::string>& parts) {
  std::vector<nvlink::NodeMatrix> nodes(static_cast<std::size_t>(world.node_count()));
  for (int r = 0; r < world.size(); ++r) {
    nvlink::RankPart part = nvlink::part_from_json(nlohmann::json::parse(parts[static_cast<std::size_t>(r)]));
    nvlink::NodeMatrix& node = nodes[static_cast<std::size_t>(world.node_of(r))];
    if (node.gpus.empty()) node.host = world.hosts_by_rank()[r];
    if (part.gpu.index == 0) {
      node.pairs = std::move(part.pairs);
      node.targets = std::move(part.targets);
    }
    node.gpus.push_back(std::move(part.gpu));
  }
  return nodes;
}

std::vector<health::TrafficEvidence> nvlink_slow_evidence(const nvlink::NvlinkRun& run, const nvlink::Analysis& a) {
  std::vector<health::TrafficEvidence> out;
  for (std::size_t n = 0; n < run.nodes.size(); ++n) {
    const auto& node = run.nodes[n];
    for (std::size_t i = 0; i < node.pairs.size(); ++i) {
      if (!a.nodes[n].pairs[i].slow) continue;
      const auto& p = node.pairs[i];
      out.push_back({{node.host}, "nvlink GPU " + std::to_string(p.src) + " -> GPU " + std::to_string(p.dst) + " slow",
                     "look inside the node: the GPUs' baseboard and NVSwitch trays (the vendor's field "
                     "diagnostics), the links' width in nvidia-smi nvlink -s"});
    }
  }
  return out;
}

// The report of RUN as judged, on OUT (with each pair's expected figures where SHOW_EXPECTED).
void print_nvlink_report(const nvlink::NvlinkRun& run, const nvlink::Analysis& analysis, bool show_expected,
                         std::ostream& out = std::cout) {
  out << nvlink::render_report(run, analysis, show_expected) << std::flush;
}

// Every node's tests at once, between two arrivals of every rank (a GPU or a node that hangs ends
// the job at -T, exit code 4, naming the phase), the ranks' parts gathered into RUN's nodes on
// rank 0; RUN is complete when every rank measured and no signal stopped it. GPU_STATE reads each
// pair's GPUs around its tests (docs/gpu-state.md: sampled on the nccl backend unless
// COMMSWEEP_GPU_STATE says otherwise, or a recording's replay).
void measure_nodes(World& world, RunControl& control, const nvlink::NvlinkSettings& s, nvlink::NvlinkRun& run,
                   WindowObserver& gpu_state) {
  std::optional<nvlink::RankPart> part;
  faults::NvlinkFaults faults(s.slow_pair_a, s.slow_pair_b, s.fault_slowdown);  // --fault, testing only
  control.until_stopped([&] {
    control.arrive(Phase{"nvlink: before the nodes' tests", Deadline::after(s.timeout_s)});
    {
      const auto guard = control.watch(Phase{"nvlink: the node's tests", Deadline::after(s.timeout_s)});
      part = p2p::measure_node(world, s, faults, &gpu_state);
    }
    control.arrive(Phase{"nvlink: after the nodes' tests", Deadline::after(s.timeout_s)});
  });
  if (part) {
    const std::vector<std::string> parts =
        world.gather(nvlink::part_to_json(*part).dump(), Phase{"nvlink: the nodes' results", Deadline::after(s.timeout_s)});
    if (world.rank() == 0) run.nodes = assemble(world, parts);
  }
  run.complete = !control.interrupted() && part.has_value();
}

std::string nvlink_header(const World& world, const nvlink::RunConfig& settings) {
  return nvlink::render_header(settings, static_cast<std::size_t>(world.node_count()), static_cast<std::size_t>(world.size()));
}

}  // namespace

int judge_nvlink_file(const nvlink::NvlinkSettings& s, const RunSettings& settings) {
  nvlink::NvlinkRun run;
  nlohmann::json doc;
  try {
    doc = report::read_json_file(s.judge_path, "--judge ");
    run = nvlink::run_from_json(doc);
  } catch (const std::runtime_error& e) {
    throw_usage(std::string(e.what()).rfind("--judge", 0) == 0 ? e.what() : "--judge " + s.judge_path + ": " + e.what());
  }
  const nvlink::RunConfig measured = run.settings;
  run.settings = recorded(s);
  // What was measured stays the file's; the thresholds are this command's.
  run.settings.bytes = measured.bytes;
  run.settings.iters = measured.iters;
  run.settings.warmup = measured.warmup;
  run.settings.latency_iters = measured.latency_iters;
  run.settings.fault = measured.fault;
  // The file's hardware against the expected figures in force now (--expected over the built-in).
  const ExpectedFile file = expected_file(settings.fabric.expected);
  const regress::ExpectedTable table = regress::expected_table(file.path, file.named);
  const regress::Expectations expected = regress::match(table, regress::facts_of(run.provenance, std::nullopt), {"nvlink"});
  const nvlink::Analysis analysis = nvlink::analyse(run, &expected);
  std::cout << "# commsweep nvlink --judge " << s.judge_path << "\n";
  if (!expected.note.empty()) std::cout << "# " << expected.note << "\n";
  print_nvlink_report(run, analysis, s.show_expected);
  const nlohmann::json judged = nvlink::to_json(run, analysis);
  const int code = judge::exit_code_of(nvlink::outcomes_of(run, analysis));
  // The files a run's lifecycle writes, by the same writer (none of them is nvlink's).
  if (settings.reports.any()) write_report_files(settings.reports, nvlink::sheet_from_json(judged), code, std::cout);
  if (!settings.json_path.empty()) {
    nlohmann::json out = judged;
    if (doc.contains("health")) out["health"] = doc["health"];
    output::write_output_file(settings.json_path, out.dump(1) + "\n");
    std::cout << "# Results written to " << settings.json_path << "\n";
  }
  return code;
}

void check_nvlink_job(World& world, const nvlink::NvlinkSettings& s, BackendChoice backend) {
  if (backend == BackendChoice::Mpi) {
    throw_usage("nvlink: --backend mpi moves host buffers, and nvlink copies between GPUs: run it with --backend nccl "
                "(or auto) on GPU nodes");
  }
  const std::vector<std::string> gpus = world.gather(gpu_or_why(world), Phase{"nvlink: the job's GPUs", Deadline::after(s.timeout_s)});
  const std::string problem = shared_from_rank0(world, world.rank() == 0 ? job_problem(world, gpus) : "", s.timeout_s);
  if (!problem.empty()) throw_usage(problem);
  check_fault(world, s);
}

void plan_nvlink_document(DocumentKeeper& keeper, const nvlink::NvlinkSettings& s) {
  nvlink::NvlinkRun run;
  run.settings = recorded(s);
  keeper.plan<NvlinkDocument>(std::move(run));
}

Outcome run_nvlink_stage(Stage& stage, const nvlink::NvlinkSettings& s) {
  World& world = stage.world;
  const bool root = world.rank() == 0;
  auto run = std::make_shared<nvlink::NvlinkRun>();
  run->settings = recorded(s);
  run->provenance = stage.setup.provenance;
  if (root) stage.out << nvlink_header(world, run->settings) << std::flush;
  NvmlWindowObserver gpu_state(std::string(stage.backend.name()), world.local_rank(),
                               p2p::gpu_of_local_rank(world.local_rank()));
  measure_nodes(world, stage.control, s, *run, gpu_state);
  const std::string gpu_state_line = gpu_state_note(gpu_state);
  if (!run->complete && stage.control.interrupted()) run->interrupted_by = termination_signal_name();
  if (stage.document) stage.document->keep<NvlinkDocument>(*run);
  Outcome outcome;
  if (!root) return outcome;
  // The expected figures of this hardware's pairs (regress/expected.hpp), matched by the lifecycle.
  const std::shared_ptr<const regress::Expectations> expected = stage.setup.expected;
  outcome.evidence = nvlink_slow_evidence(*run, nvlink::analyse(*run, expected.get()));
  // Its summary's exit code and --prometheus's name the health FAILs when it runs alone: its
  // report comes once the run's health is known (run/measure.cpp).
  outcome.report = [run, show_expected = s.show_expected, expected, gpu_state_line](
                       const std::vector<std::string>& health_fail, std::ostream& out) {
    run->health_fail = health_fail;
    const nvlink::Analysis analysis = nvlink::analyse(*run, expected.get());
    print_nvlink_report(*run, analysis, show_expected, out);
    if (!gpu_state_line.empty()) out << "# " << gpu_state_line << "\n";
    out << std::flush;
    DocumentReport reported;
    reported.document = nvlink::to_json(*run, analysis);
    reported.wrong = analysis.wrong_total;
    // The run's health, interruption and wrong bytes are the lifecycle's to judge; the slow links are this sweep's.
    reported.verdict = judge::exit_code_of(nvlink::outcomes_of(*run, analysis)) == exit_code::kSlow ? exit_code::kSlow : 0;
    return reported;
  };
  return outcome;
}

}  // namespace commsweep
