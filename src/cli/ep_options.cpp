#include "cli/ep_options.hpp"

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "cli/flags.hpp"
#include "ep_pattern.hpp"
#include "runtime/error.hpp"

namespace commsweep {
namespace po = boost::program_options;
using nlohmann::json;
namespace {

// Bounds that keep every product (tokens x hidden x ranks) far from overflow; DeepEP's own
// tests stay below 4096 tokens, hidden 7168, top-k 8 and 288 experts.
constexpr long long kMaxTokens = 1 << 24;
constexpr long long kMaxHidden = 1 << 20;
constexpr long long kMaxTopk = 1024;
constexpr long long kMaxExperts = 1 << 20;
constexpr long long kMaxIters = 1 << 24;
constexpr long long kMaxTimeoutS = 7 * 24 * 3600;

po::options_description axis_flags() {
  po::options_description d("Axes (comma lists; every combination is a row)");
  d.add_options()
      ("tokens", po::value<std::string>()->default_value("128,256,512,1024,2048,4096"), "tokens per rank")
      ("hidden", po::value<std::string>()->default_value("7168"), "elements per token (a multiple of 8: 16-byte vectors)")
      ("topk", po::value<std::string>()->default_value("8"), "experts per token")
      ("experts", po::value<std::string>()->default_value("256"), "experts in all; experts / ranks on each rank (must divide)")
      ("dtype", po::value<std::string>()->default_value("bf16"), "dispatch type: bf16, fp8 (e4m3, one fp32 scale per 128 elements; hidden a multiple of 128)")
      ("routing", po::value<std::string>()->default_value("randn"), "randn uniform balanced skewed file (below)")
      ("ep-impl", po::value<std::string>()->default_value("alltoallv"), "how the exchange is done (below): alltoallv, lsa; alltoallv,lsa runs both on every case, side by side");
  return d;
}

po::options_description run_flags() {
  po::options_description d("Settings");
  d.add_options()
      ("skew", po::value<std::string>()->default_value("1.0"), "skewed routing: expert e drawn with weight 1 / (e + 1)^S, S > 0")
      ("routing-file", po::value<std::string>(), "the routing table of --routing file (format below)")
      ("topk-groups", po::value<std::string>()->default_value("0"), "N > 0: a token's experts lie on at most N nodes (DeepEP's num_topk_groups); 0 off")
      ("iters,n", po::value<std::string>()->default_value("20"), "timed iterations per row")
      ("warmup_iters,w", po::value<std::string>()->default_value("5"), "untimed warm-up iterations per row")
      ("check,c", po::value<std::string>()->default_value("1"), "1: verify every dispatched and combined element bit-exact; 0 off")
      ("timeout,T", po::value<std::string>()->default_value("300"), "seconds any phase may take before the job is ended")
      ("seed", po::value<std::string>(), "seed of the routing and the token data")
      ("lsa-blocks", po::value<std::string>()->default_value("0"), "--ep-impl lsa: thread blocks (512 threads) per kernel, at most what the GPU keeps resident; 0: a warp per (token, rank) piece, up to 2 blocks per SM")
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("json", po::value<std::string>(), "write the results as JSON to this file (atomically)")
      ("suite", po::value<std::string>(), "read axes and settings from this JSON file (below); flags given override it")
      ("fault", po::value<std::string>(), "testing only: wrong-element:RANK flips one dispatched and one combined element on RANK")
      ("shape", po::value<std::string>(), "the node shape (else COMMSWEEP_SHAPE or the node's instance-type label): NCCL_TOPO_FILE is set to /etc/commsweep/topology/SHAPE.xml after checking it against the node")
      ("force", "run with a topology file that does not match the node")
      ("help,h", "show this help");
  return d;
}

// A setting's command-line option, its name in messages, and its key in a suite file.
struct Key {
  const char* option;
  const char* flag;
  const char* suite_key;
};
constexpr Key kTokens{"tokens", "--tokens", "tokens"};
constexpr Key kHidden{"hidden", "--hidden", "hidden"};
constexpr Key kTopk{"topk", "--topk", "topk"};
constexpr Key kExperts{"experts", "--experts", "experts"};
constexpr Key kDtype{"dtype", "--dtype", "dtype"};
constexpr Key kRouting{"routing", "--routing", "routing"};
constexpr Key kSkew{"skew", "--skew", "skew"};
constexpr Key kRoutingFile{"routing-file", "--routing-file", "routing_file"};
constexpr Key kTopkGroups{"topk-groups", "--topk-groups", "topk_groups"};
constexpr Key kIters{"iters", "-n/--iters", "iters"};
constexpr Key kWarmup{"warmup_iters", "-w/--warmup_iters", "warmup"};
constexpr Key kCheck{"check", "-c/--check", "check"};
constexpr Key kSeed{"seed", "--seed", "seed"};
constexpr Key kImpl{"ep-impl", "--ep-impl", "impl"};
constexpr Key kLsaBlocks{"lsa-blocks", "--lsa-blocks", "lsa_blocks"};
constexpr Key kSuiteKeys[] = {kTokens, kHidden, kTopk,  kExperts, kDtype, kRouting, kSkew, kRoutingFile,
                              kTopkGroups, kIters, kWarmup, kCheck, kSeed, kImpl, kLsaBlocks};

// A suite file, read and checked for unknown keys.
struct Suite {
  std::string path;
  json doc;
};

// One setting as given: the command line's text (a JSON string), or the suite's JSON value.
struct Given {
  std::string where;  // "--tokens", or "--suite FILE: key \"tokens\""
  bool from_suite = false;
  json value;
};

std::optional<Given> given(const po::variables_map& vm, const std::optional<Suite>& suite,
                           const Key& k) {
  const bool typed = vm.count(k.option) > 0 && !vm[k.option].defaulted();
  if (!typed && suite && suite->doc.contains(k.suite_key)) {
    return Given{"--suite " + suite->path + ": key \"" + k.suite_key + "\"", true,
                 suite->doc.at(k.suite_key)};
  }
  if (vm.count(k.option) == 0) return std::nullopt;
  return Given{k.flag, false, json(vm[k.option].as<std::string>())};
}

Given required(const po::variables_map& vm, const std::optional<Suite>& suite, const Key& k) {
  return *given(vm, suite, k);  // every option asked for this way has a default
}

std::string shown(const Given& g, const json& item) {
  return g.from_suite ? item.dump() : "'" + item.get<std::string>() + "'";
}

// The items of a list setting: comma-separated text, or a JSON array or single value.
std::vector<json> items_of(const Given& g) {
  std::vector<json> items;
  if (!g.from_suite) {
    for (const auto& part : split_commas(g.value.get<std::string>())) items.emplace_back(part);
  } else if (g.value.is_array()) {
    items = g.value.get<std::vector<json>>();
  } else {
    items.push_back(g.value);
  }
  if (items.empty()) throw_usage(g.where + ": no value given");
  return items;
}

const json& single(const Given& g) {
  if (g.from_suite && (g.value.is_array() || g.value.is_object())) {
    throw_usage(g.where + ": " + g.value.dump() + " is not a single value");
  }
  return g.value;
}

long long whole_number(const Given& g, const json& item, long long min, long long max) {
  long long v = 0;
  if (g.from_suite) {
    if (!item.is_number_integer()) throw_usage(g.where + ": " + item.dump() + " is not a whole number");
    const bool huge = item.is_number_unsigned() && item.get<std::uint64_t>() > INT64_MAX;
    v = huge ? INT64_MAX : item.get<long long>();
  } else {
    const std::string text = item.get<std::string>();
    std::size_t used = 0;
    try {
      v = std::stoll(text, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw_usage(g.where + ": '" + text + "' is not a whole number");
  }
  if (v < min || v > max) {
    throw_usage(g.where + ": " + shown(g, item) + " is out of range (" + std::to_string(min) +
                " to " + std::to_string(max) + ")");
  }
  return v;
}

std::vector<int> int_list(const Given& g, long long min, long long max) {
  std::vector<int> values;
  for (const auto& item : items_of(g)) {
    const int v = static_cast<int>(whole_number(g, item, min, max));
    // Two equal rows would be two results under one name.
    for (const int seen : values) {
      if (seen == v) throw_usage(g.where + ": " + std::to_string(v) + " is given twice");
    }
    values.push_back(v);
  }
  return values;
}

// Each item one of `names`; returns their indices.
std::vector<int> name_list(const Given& g, const std::vector<std::string>& names) {
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : " ") + n;
  std::vector<int> picked;
  for (const auto& item : items_of(g)) {
    if (!item.is_string()) throw_usage(g.where + ": " + item.dump() + " is not a name (" + known + ")");
    const std::string name = item.get<std::string>();
    int index = -1;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) index = static_cast<int>(i);
    }
    if (index < 0) throw_usage(g.where + ": unknown value '" + name + "' (" + known + ")");
    for (const int seen : picked) {
      if (seen == index) throw_usage(g.where + ": '" + name + "' is given twice");
    }
    picked.push_back(index);
  }
  return picked;
}

double positive_number(const Given& g) {
  const json& item = single(g);
  double v = 0;
  if (g.from_suite) {
    if (!item.is_number()) throw_usage(g.where + ": " + item.dump() + " is not a number");
    v = item.get<double>();
  } else {
    const std::string text = item.get<std::string>();
    std::size_t used = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw_usage(g.where + ": '" + text + "' is not a number");
  }
  if (!std::isfinite(v) || v <= 0) throw_usage(g.where + ": " + shown(g, item) + " must be a number > 0");
  return v;
}

std::uint64_t seed_of(const Given& g) {
  const json& item = single(g);
  if (g.from_suite) {
    if (item.is_number_unsigned()) return item.get<std::uint64_t>();
    if (item.is_number_integer()) throw_usage(g.where + ": " + item.dump() + " is negative");
    throw_usage(g.where + ": " + item.dump() + " is not a whole number");
  }
  const std::string text = item.get<std::string>();
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    if (!text.empty() && text[0] != '-') v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    throw_usage(g.where + ": '" + text + "' is not a whole number from 0 to 2^64-1");
  }
  return v;
}

bool check_of(const Given& g) {
  const json& item = single(g);
  if (g.from_suite && item.is_boolean()) return item.get<bool>();
  return whole_number(g, item, 0, 1) == 1;
}

std::string text_of(const Given& g) {
  const json& item = single(g);
  if (!item.is_string()) throw_usage(g.where + ": " + item.dump() + " is not a string");
  return item.get<std::string>();
}

Suite read_suite(const std::string& path) {
  std::ifstream in(path);
  if (path.empty() || std::filesystem::is_directory(path) || !in) {
    throw_usage("--suite: cannot read '" + path + "'");
  }
  Suite s{path, json()};
  try {
    s.doc = json::parse(in);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    throw_usage("--suite " + path + ": not valid JSON: " + e.what());
  }
  std::string keys;
  for (const auto& k : kSuiteKeys) keys += std::string(keys.empty() ? "" : " ") + k.suite_key;
  if (!s.doc.is_object()) {
    throw_usage("--suite " + path + ": not a JSON object of settings (keys: " + keys + ")");
  }
  for (const auto& item : s.doc.items()) {
    bool known = false;
    for (const auto& k : kSuiteKeys) known = known || item.key() == k.suite_key;
    if (!known) throw_usage("--suite " + path + ": unknown key \"" + item.key() + "\" (keys: " + keys + ")");
  }
  return s;
}

// A routing file named in a suite is relative to the suite's folder, so that the two travel
// together.
std::string routing_file_of(const Given& g, const std::optional<Suite>& suite) {
  std::string path = text_of(g);
  if (path.empty()) throw_usage(g.where + ": give a file name");
  if (g.from_suite && std::filesystem::path(path).is_relative()) {
    path = (std::filesystem::path(suite->path).parent_path() / path).string();
  }
  std::ifstream in(path);
  if (std::filesystem::is_directory(path) || !in) {
    throw_usage(g.where + ": cannot read the routing file '" + path + "'");
  }
  return path;
}

// What can be refused before the ranks are counted: fp8 needs whole 128-element blocks, and no
// token can pick more distinct experts than there are.
void check_combinations(const ep::EpConfig& c, const Given& hidden, const Given& dtype,
                        const Given& topk, const Given& experts) {
  bool fp8 = false;
  for (const auto d : c.dtypes) fp8 = fp8 || d == ep::EpDtype::Fp8;
  for (const int h : c.hidden) {
    if (fp8 && h % ep::kFp8BlockElements != 0) {
      throw_usage(hidden.where + ": " + std::to_string(h) + " is not a multiple of " +
                  std::to_string(ep::kFp8BlockElements) + ", which fp8 (" + dtype.where +
                  ") needs: one fp32 scale per block of " +
                  std::to_string(ep::kFp8BlockElements) + " elements, as DeepEP");
    }
  }
  for (const int k : c.topk) {
    for (const int e : c.experts) {
      if (k > e) {
        throw_usage(topk.where + ": " + std::to_string(k) + " is more than the experts (" +
                    experts.where + " " + std::to_string(e) + "): a token picks distinct experts");
      }
    }
  }
}

ep::EpConfig parse_config(const po::variables_map& vm, const std::optional<Suite>& suite) {
  ep::EpConfig c;
  const Given tokens = required(vm, suite, kTokens), hidden = required(vm, suite, kHidden),
              topk = required(vm, suite, kTopk), experts = required(vm, suite, kExperts),
              dtype = required(vm, suite, kDtype), routing = required(vm, suite, kRouting);
  c.tokens = int_list(tokens, 0, kMaxTokens);
  c.hidden = int_list(hidden, 1, kMaxHidden);
  c.topk = int_list(topk, 1, kMaxTopk);
  c.experts = int_list(experts, 1, kMaxExperts);
  c.dtypes.clear();
  for (const int i : name_list(dtype, {"bf16", "fp8"})) c.dtypes.push_back(static_cast<ep::EpDtype>(i));
  c.routings.clear();
  for (const int i : name_list(routing, {"randn", "uniform", "balanced", "skewed", "file"})) {
    c.routings.push_back(static_cast<ep::RoutingKind>(i));
  }
  c.impls.clear();
  for (const int i : name_list(required(vm, suite, kImpl), {"alltoallv", "lsa"})) {
    c.impls.push_back(static_cast<ep::EpImpl>(i));
  }
  const Given lsa_blocks = required(vm, suite, kLsaBlocks);
  c.lsa_blocks = static_cast<int>(whole_number(lsa_blocks, single(lsa_blocks), 0, 1 << 16));
  c.skew = positive_number(required(vm, suite, kSkew));
  const Given groups = required(vm, suite, kTopkGroups);
  c.topk_groups = static_cast<int>(whole_number(groups, single(groups), 0, kMaxExperts));
  const Given iters = required(vm, suite, kIters), warmup = required(vm, suite, kWarmup);
  c.iters = static_cast<int>(whole_number(iters, single(iters), 1, kMaxIters));
  c.warmup = static_cast<int>(whole_number(warmup, single(warmup), 0, kMaxIters));
  c.check = check_of(required(vm, suite, kCheck));
  if (const auto seed = given(vm, suite, kSeed)) c.seed = seed_of(*seed);

  bool file_routing = false;
  for (const auto r : c.routings) file_routing = file_routing || r == ep::RoutingKind::File;
  if (const auto file = given(vm, suite, kRoutingFile)) {
    if (!file_routing) throw_usage(file->where + " is read only with " + routing.where + " file");
    c.routing_file = routing_file_of(*file, suite);
  } else if (file_routing) {
    throw_usage(routing.where + " file needs --routing-file PATH (the routing table)");
  }
  check_combinations(c, hidden, dtype, topk, experts);
  return c;
}

int fault_rank(const std::string& text) {
  const std::string kind = "wrong-element:";
  if (text.compare(0, kind.size(), kind) != 0) {
    throw_usage("--fault: unknown fault '" + text + "' (wrong-element:RANK)");
  }
  const Given rank{"--fault", false, json(text.substr(kind.size()))};
  return static_cast<int>(whole_number(rank, rank.value, 0, 1 << 30));
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
  std::optional<Suite> suite;
  if (vm.count("suite")) suite = read_suite(vm["suite"].as<std::string>());
  o.config = parse_config(vm, suite);
  if (vm.count("fault")) o.config.fault_wrong_rank = fault_rank(vm["fault"].as<std::string>());
  const Given timeout{"-T/--timeout", false, json(vm["timeout"].as<std::string>())};
  o.config.timeout_s = static_cast<double>(whole_number(timeout, timeout.value, 1, kMaxTimeoutS));
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
         "  alltoallv  the reference: kernels pack the records, the counts go first (ncclSend/Recv),\n"
         "             the host waits for them, then grouped ncclSend/Recv move the records and,\n"
         "             reversed, the partial sums; time is the host's wall time of the whole step.\n"
         "             On the mpi backend the same exchange is MPI_Alltoallv on host buffers.\n"
         "  lsa        nccl backend, NCCL 2.28+ device API; which library it runs on is the NCCL\n"
         "             version policy's (stated before the table; docs/nccl-versions.md). On one\n"
         "             node one cooperative kernel per step stores each token once per destination\n"
         "             rank straight into the receiver's symmetric buffer (ncclMemAlloc +\n"
         "             ncclCommWindowRegister, peer pointers; counts by the LL all-to-all, LSA\n"
         "             barriers between stages); the combine stores each rank's weighted partial\n"
         "             sums straight back. Replayed as a CUDA graph; time is the kernel's own span\n"
         "             (first block's start to last block's end, on the GPU's clock), as DeepEP\n"
         "             times its kernels. On several nodes the same within each node, and\n"
         "             ncclSend/Recv to other nodes; time is then the host's wall time.\n"
         "  Both produce the same expert-grouped buffers and the same combined output, checked\n"
         "  element by element against the host reference.\n"
      << visible << "\n"
      << "Defaults are DeepEP's test sizes (DeepSeek-V3: hidden 7168, top-k 8, 256 experts) over\n"
         "128..4096 tokens per rank. Experts must divide by the ranks.\n\n"
         "--suite FILE: a JSON object with any of the keys tokens, hidden, topk, experts, dtype,\n"
         "routing (a list or one value), skew, routing_file (relative to the suite's folder),\n"
         "topk_groups, iters, warmup, check, seed, impl, lsa_blocks. Flags given on the command line override it.\n\n"
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
         "  mpirun -np 4 commsweep ep --suite moe.json --tokens 1024\n"
         "  mpirun -np 4 commsweep ep --ep-impl alltoallv,lsa --tokens 128,4096   (one node, NVLink)\n";
  return out.str();
}

}  // namespace commsweep
