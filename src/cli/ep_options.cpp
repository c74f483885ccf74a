#include "cli/ep_options.hpp"

#include <boost/program_options.hpp>
#include <optional>
#include <sstream>

#include "cli/flags.hpp"
#include "core/text_file.hpp"
#include "ep/implementation.hpp"
#include "ep/settings.hpp"
#include "core/error.hpp"
#include "settings/program_options.hpp"
#include "suite/document.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

po::options_description axis_flags() {
  po::options_description d("Axes (comma lists; every combination is a row)");
  settings::describe(d, ep::ep_settings().specs(), ep::kAxesSection);
  return d;
}

po::options_description run_flags() {
  po::options_description d("Settings");
  settings::describe(d, ep::ep_settings().specs(), ep::kSettingsSection);
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("json", po::value<std::string>(), "write the results as JSON to this file (atomically)")
      ("suite", po::value<std::string>(), "read axes and settings from this JSON or YAML file (below); flags given override it")
      ("shape", po::value<std::string>(), "the node shape (else COMMSWEEP_SHAPE or the node's instance-type label): NCCL_TOPO_FILE is set to /etc/commsweep/topology/SHAPE.xml after checking it against the node")
      ("force", "run with a topology file that does not match the node")
      ("help,h", "show this help");
  return d;
}

// `--suite FILE`: a mapping of ep keys, as one `kind: ep` entry of a suite file (kind optional).
struct SuiteFile {
  std::string path;
  suite::Document doc;
};

SuiteFile read_suite_file(const std::string& path) {
  SuiteFile s{path, {}};
  std::string text;
  try {
    text = read_bounded_file(path, suite::kMaxDocumentBytes);
  } catch (const std::runtime_error& e) {
    throw_usage(std::string("--suite: ") + e.what());
  }
  try {
    s.doc = suite::parse_document(path, text);
  } catch (const suite::SyntaxError& e) {
    throw_usage("--suite " + path + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": " +
                e.what());
  }
  if (!s.doc.value.is_object()) {
    throw_usage("--suite " + path + ": not a mapping (a JSON object or YAML mapping) of ep settings (keys: " +
                settings::key_list(ep::ep_settings().specs(), {"kind"}) + ")");
  }
  return s;
}

settings::DocumentEntry entry_of(const SuiteFile& s) {
  settings::DocumentEntry e;
  e.entry = &s.doc.value;
  e.path = s.path;
  e.prefix = "--suite ";
  e.line_of = [&doc = s.doc](const std::string& pointer) { return doc.line_of(pointer); };
  settings::check_keys(e, ep::ep_settings().specs(), {"name", "kind"});
  if (s.doc.value.contains("kind") && s.doc.value.at("kind") != "ep") {
    e.refuse("kind", s.doc.value.at("kind").dump() + " is not ep (the keys of `commsweep ep --suite` are an ep entry's)");
  }
  return e;
}

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

}  // namespace

EpCliOptions parse_ep_options(int argc, const char* const* argv) {
  const int first = argc > 1 && std::string(argv[1]) == "ep" ? 2 : 1;
  po::options_description all;
  all.add(axis_flags()).add(run_flags()).add(fabric_run_flags()).add_options()(
      "unexpected", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("unexpected", -1);  // named so that they can be refused by name
  const po::variables_map vm =
      parse_flags(argc, argv, first, all, positional, "ep: ", " (see commsweep ep --help)");

  if (vm.count("unexpected")) {
    throw_usage("ep: unexpected argument '" + vm["unexpected"].as<std::vector<std::string>>().front() +
                "' (commsweep ep takes flags only; see commsweep ep --help)");
  }
  EpCliOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  if (vm.count("help")) {
    o.help = true;
    return o;
  }
  o.backend = parse_backend(vm["backend"].as<std::string>());
  if (vm.count("json")) {
    o.json_path = vm["json"].as<std::string>();
    if (o.json_path.empty()) throw_usage("--json: give a file name");
  }
  if (vm.count("shape")) {
    o.shape = vm["shape"].as<std::string>();
    if (o.shape.empty()) throw_usage("--shape: give a shape, e.g. BM.GPU.H100.8");
  }
  o.force_topology = vm.count("force") > 0;
  o.fabric = parse_fabric_run_flags(vm, o.backend == BackendChoice::Mpi);
  std::optional<SuiteFile> suite;
  std::optional<settings::DocumentEntry> entry;
  if (vm.count("suite")) {
    suite = read_suite_file(vm["suite"].as<std::string>());
    entry = entry_of(*suite);
  }
  settings::apply(ep::ep_settings(), o.config, settings::given_flags(vm, ep::ep_settings().specs()),
                  entry ? &*entry : nullptr);
  return o;
}

std::string ep_help_text() {
  po::options_description visible;
  visible.add(axis_flags()).add(run_flags()).add(fabric_run_flags());
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
      << implementations_help()
      << visible << "\n"
      << "Defaults are DeepEP's test sizes (DeepSeek-V3: hidden 7168, top-k 8, 256 experts) over\n"
         "128..4096 tokens per rank. Experts must divide by the ranks.\n\n"
         "--suite FILE: JSON or YAML, a mapping with any of the keys\n"
         "  " << wrapped(settings::key_list(ep::ep_settings().specs(), {})) << "\n"
         "the same as one `kind: ep` entry of a `commsweep suite` file (kind optional; each key as\n"
         "its flag, a list or one value for the axes, routing_file relative to FILE's folder).\n"
         "Flags given on the command line override its keys; its keys override the defaults.\n\n"
         "Exit codes (as the collectives): 0 all passed; 1 wrong elements found; 2 bad flags or\n"
         "input; 3 a CUDA, NCCL or MPI call failed; 4 timeout (hang); 5 interrupted (SIGTERM,\n"
         "SIGINT): the rows measured so far, marked incomplete; 6 NCCL did not use the\n"
         "--require-transport / --require-gdr transport (stopped before measuring).\n"
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

}  // namespace commsweep
