// MoE expert-parallel dispatch / combine (`commsweep ep`, a suite's `kind: ep`): the sweep of
// ep/ (its implementations ep/impls/, its settings ep/settings.cpp) on the run's backend.
#include <sstream>

#include "core/exit_codes.hpp"
#include "ep/implementation.hpp"
#include "ep/settings.hpp"
#include "run/sweeps.hpp"
#include "run/workload.hpp"

namespace commsweep {
namespace {

class EpMeasurement final : public MeasurementOf<ep::EpConfig> {
 public:
  using MeasurementOf::MeasurementOf;
  void check(World& world) override { check_ep_config(world, config); }
  // The NCCL version policy's decisions for the implementations asked for (an implementation
  // refused is left out, and the note says why).
  std::string prepare(World& world, RunSetup& setup) override {
    note_ = apply_ep_nccl_policy(world, setup, config);
    return note_;
  }
  std::string what() const override { return "ep"; }
  std::vector<std::string> expected_workloads() const override { return {"ep"}; }
  double timeout_s() const override { return config.timeout_s; }
  Outcome run(Stage& stage, report::Results& results) override {
    EpOutcome outcome =
        run_ep_sweep(stage.world, stage.backend, stage.control, stage.setup, config, stage.out, note_);
    for (auto& r : outcome.rows) results.ep_rows.push_back(std::move(r));
    for (auto& f : outcome.expected_findings) results.expected_findings.push_back(std::move(f));
    Outcome out;
    out.wrong = outcome.wrong;
    return out;
  }

 private:
  std::string note_;
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  ep::EpConfig c;
  settings::apply(ep::ep_settings(), c, flags, document);
  c.timeout_s = run.timeout_s;
  return std::make_unique<EpMeasurement>(std::move(c));
}

std::vector<const settings::Spec*> specs() { return ep::ep_settings().specs(); }

// Words in lines of at most 88 columns, each line after the first indented by two spaces.
std::string wrapped(const std::string& text) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && 2 + line.size() + 1 + word.size() > 88) {
      out += line + "\n  ";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

// The keys of an ep entry: its table's and the run's (timeout).
std::string suite_keys() { return settings::key_list(entry_specs(*find_workload("ep")), {}); }

// The registered implementations' paragraphs (ep/impls/<name>.cpp), the name in a column.
std::string implementations_help() {
  std::string out;
  for (const ep::EpImplementation* impl : ep::ep_implementations()) {
    std::istringstream lines{std::string(impl->help)};
    std::string line;
    for (bool first = true; std::getline(lines, line); first = false) {
      const std::string name = first ? std::string(impl->name) : "";
      out += "  " + name + std::string(name.size() < 11 ? 11 - name.size() : 1, ' ') + line + "\n";
    }
  }
  const std::size_t n = ep::ep_implementations().size();
  return out + "  " + (n == 2 ? "Both produce" : "Every one produces") +
         " the same expert-grouped buffers and the same combined output, checked\n"
         "  element by element against the host reference.\n";
}

std::string help_intro() {
  std::ostringstream out;
  out << "commsweep ep: the MoE expert-parallel exchange (dispatch, then combine) as a sweep over\n"
         "tokens, hidden size, top-k, experts, data type and routing, as DeepEP's tests run it.\n\n"
         "Usage: mpirun -np N commsweep ep [flags]\n"
         "       commsweep ep --help\n\n"
         "The exchange: rank r holds experts r*E/N .. (r+1)*E/N - 1 of E experts on N ranks.\n"
         "  dispatch  each rank sends each of its tokens (hidden elements) to the ranks of its top-k\n"
         "            experts: once to each distinct rank, not once per expert; bf16, or fp8 (e4m3)\n"
         "            with one fp32 scale per 128 elements (DeepEP's per-token cast).\n"
         "  combine   each rank applies its experts to what it received, sums its experts' weighted\n"
         "            outputs per token and sends one bf16 vector back per (token, rank); the token's\n"
         "            source adds them up in rank order.\n"
         "  With -c 1 every dispatched and every combined element is compared bit-exact with a host\n"
         "  reference; #wrong sums the differences over ranks.\n\n"
         "Bytes and bandwidth (GB/s = 1e9 bytes/s):\n"
         "  bandwidth  DeepEP's accounting, as DeepEP and UCCL-EP report: the bytes a rank receives in\n"
         "             dispatch (sends in combine), one copy per (token, destination rank) INCLUDING the\n"
         "             rank's own tokens, divided by its time; the table shows the mean over ranks.\n"
         "             A copy is 2 x hidden bytes in bf16, hidden + 4 x hidden/128 in fp8 (dispatch);\n"
         "             combine returns bf16 always.\n"
         "  fabric     the same EXCLUDING what a rank sends to itself: what crosses NVLink or the\n"
         "             network (JSON: fabric_bandwidth_gbps, rank_bytes_fabric).\n"
         "  time       per rank the median over the -n iterations, then the mean over ranks.\n\n"
         "Routing (--routing, a comma list; deterministic from --seed and the rank):\n"
         "  randn     DeepEP's test: scores |randn| + 1 per (token, expert), the top-k taken\n"
         "  uniform   top-k distinct experts drawn uniformly\n"
         "  balanced  token t takes experts (t*topk + j) % experts: every expert equally loaded\n"
         "  skewed    experts drawn with weight 1 / (e + 1)^S (--skew S): the low experts are hot\n"
         "  file      --routing-file: lines 'rank token expert_1 .. expert_k [weight_1 .. weight_k]',\n"
         "            one for each token 0..tokens-1 of every rank; weights default to 1/k; '#' comments\n"
         "  --topk-groups N limits a token's experts to N nodes (DeepEP's num_topk_groups).\n\n"
         "Implementations (--ep-impl, a comma list; each case runs on each, rows side by side):\n"
      << implementations_help();
  return out.str();
}

std::string help_end() {
  std::ostringstream out;
  out << "Defaults are DeepEP's test sizes (DeepSeek-V3: hidden 7168, top-k 8, 256 experts) over\n"
         "128..4096 tokens per rank. Experts must divide by the ranks.\n\n"
         "--suite FILE: a `commsweep suite` file of one sweep, `kind: ep` and any of the keys\n"
         "  " << wrapped(suite_keys()) << "\n"
         "(each key as its flag, a list or one value for the axes, routing_file relative to\n"
         "FILE's folder), so that `commsweep suite FILE` runs the same rows. Flags given on the\n"
         "command line override its keys; its keys override the defaults. E.g. moe.yaml:\n"
         "  - kind: ep\n"
         "    tokens: [128, 512]\n"
         "    dtype: [bf16, fp8]\n\n"
      << measuring_exit_codes_help(/*slow=*/true)
      << "As the collectives (commsweep --help): 5 the rows measured so far, marked incomplete; 6 a\n"
         "health FAIL around the run, or NCCL did not use the --require-transport / --require-gdr\n"
         "transport (stopped before measuring); 8 a dispatched or combined element wrong; 10 a phase\n"
         "below its expected time's FAIL floor, where results/expected/ (or --expected FILE) has one for\n"
         "this GPU model and count, its implementation and data type (docs/expected.md).\n"
         "A brief fabric preflight and, on the nccl backend, a transport report (NCCL's own INFO\n"
         "lines) come before the table (commsweep --help, Fabric).\n\n"
         "Examples:\n"
         "  mpirun -np 8 commsweep ep\n"
         "  mpirun -np 8 commsweep ep --tokens 512 --experts 32      (the Helm chart's job)\n"
         "  mpirun -np 4 commsweep ep --dtype bf16,fp8 --routing randn,skewed --skew 1.5 --json ep.json\n"
         "  mpirun -np 4 commsweep ep --suite moe.yaml --tokens 1024\n"
         "  mpirun -np 4 commsweep ep --ep-impl alltoallv,lsa --tokens 128,4096   (one node, NVLink)\n";
  return out.str();
}

std::vector<std::string> baseline_tests() { return {"ep"}; }

}  // namespace

const Workload& ep_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "ep";
    w.command = "ep";
    w.summary = "MoE dispatch/combine sweep (commsweep ep --help)";
    w.order = 20;
    w.specs = specs;
    w.sections = {{ep::kAxesSection, "Axes (comma lists; every combination is a row)"},
                  {ep::kSettingsSection, "Settings"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.baseline_tests = baseline_tests;
    return w;
  }();
  return w;
}

}  // namespace commsweep
