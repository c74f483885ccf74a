#include "ep/gpu/lsa_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iterator>
#include <sstream>

#include "ep/layout.hpp"
#include "ep/gpu/device_result.hpp"
#include "ep/gpu/grouped_send_recv.hpp"
#include "ep_kernels.hpp"
#include "nccl_device_api.hpp"
#include "core/error.hpp"


#define CS_LSA_NCCL(call, phase) backend_.check((call), #call, __FILE__, __LINE__, (phase))

namespace commsweep::ep {
namespace {

constexpr std::size_t kWindowAlign = 4096;  // NCCL_WIN_REQUIRED_ALIGNMENT
// Warps of each block (of 16) that start on the receiver's work, waiting for flags: copies to
// further experts in the dispatch, the reduction in the combine (kernels/ep_lsa.cu); the
// others store first, then join them. Pieces a warp stores before it publishes their flags
// (one release fence for them all). Measured on 2 x H100 at 128 and 4096 tokens (bf16,
// results/figures-log.md, version 2): dispatch helpers 2 / 4 / 6 gave 292.9 / 277.8 / 273.5 us at 4096;
// combine helpers 2 / 3 / 4 gave 313.0 / 320.4 / 335.2 us (at 128 tokens 25.6 / 25.2 / 24.3);
// a batch of 1 / 4 / 8 gave combines of 353.7 / 335.2 / 325.5 us and dispatches of
// 275.3 / 277.8 / 294.4 us.
constexpr int kDispatchHelpers = 6, kCombineHelpers = 2;
constexpr int kFlagBatch = 4;
// Tokens up to which the dispatch runs one block an SM (prepare).
constexpr int kOneBlockPerSmTokens = 1024;

std::size_t aligned(std::size_t bytes) { return (bytes + kWindowAlign - 1) / kWindowAlign * kWindowAlign; }

// The case's shape as this rank sees it (kernels::LsaShape).
kernels::LsaShape shape_of(const EpCase& c, int rank, int nranks) {
  kernels::LsaShape s;
  s.f = record_format(static_cast<std::uint32_t>(c.hidden), static_cast<std::uint32_t>(c.topk), c.dtype == EpDtype::Fp8);
  s.header_bytes = static_cast<std::uint32_t>((12 * c.topk + 15) / 16 * 16);
  s.rank = rank;
  s.nranks = nranks;
  s.tokens = c.tokens;
  s.experts = c.experts;
  s.local_experts = experts_per_rank(c.experts, nranks);
  s.first_expert = rank * s.local_experts;
  s.entries_room = kernels::lsa_entries_room(c.tokens, c.topk, s.local_experts);
  // A flag per piece: segment_bytes of a record's payload, kLsaCombinePieceMax elements of a
  // partial (the smaller pieces carry their own arrival: kernels::lsa_combine_marked).
  s.segment_bytes = kernels::lsa_segment_bytes(s.f.payload_stride);
  return s;
}

// The window (kernels/ep_lsa.hpp), every part at fixed places: room for every rank's tokens
// here, each in up to min(topk, local experts) entries, and for this rank's tokens' partials
// from every rank; a marked dispatch's headers and grouped buffer twice. `end`: the bytes the
// window needs.
struct WindowPlan {
  kernels::LsaWindow parts;  // the offsets (the handle is the window's, once it has room)
  std::size_t partials_bytes = 0;
  std::size_t end = 0;
};
WindowPlan window_plan(const kernels::LsaShape& s, bool marked) {
  const std::size_t n = static_cast<std::size_t>(s.nranks);
  const std::size_t records_max = static_cast<std::size_t>(s.tokens) * n;  // records here, partials here
  const std::size_t entries_max = static_cast<std::size_t>(s.entries_room) * n;
  const std::size_t flags = records_max * kernels::lsa_segments(s.f.payload_stride, s.segment_bytes);
  const std::size_t partial_flags = records_max * kernels::lsa_segments(s.f.hidden, kernels::kLsaCombinePieceMax);
  const std::size_t regions = marked ? 2 : 1;
  WindowPlan plan;
  plan.partials_bytes = records_max * 2 * s.f.hidden;
  kernels::LsaWindow& w = plan.parts;
  w.counts_offset = 0;
  w.expert_counts_offset = aligned(sizeof(int) * n * n);
  w.headers_offset = w.expert_counts_offset + aligned(sizeof(int) * n * static_cast<std::size_t>(s.experts));
  w.grouped_offset = w.headers_offset + regions * aligned(records_max * s.header_bytes);
  w.partials_offset = w.grouped_offset + regions * aligned(std::max<std::size_t>(entries_max * s.f.payload_stride, 16));
  w.flags_offset = w.partials_offset + aligned(std::max<std::size_t>(plan.partials_bytes, 16));
  w.partial_flags_offset = w.flags_offset + aligned(std::max<std::size_t>(flags * sizeof(unsigned), 16));
  plan.end = w.partial_flags_offset + aligned(std::max<std::size_t>(partial_flags * sizeof(unsigned), 16));
  return plan;
}

[[maybe_unused]] std::string window_mib(std::size_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20);
  return out.str();
}

}  // namespace

std::string lsa_unavailable(std::string_view policy_path) {
  const nccl_policy::Decision d = nccl_policy::decide(policy_path, nccl_policy_versions());
  return d.refused() ? d.message : "";
}

#if COMMSWEEP_NCCL_DEVICE_API

struct LsaExchange::NodeComm {
  ncclComm_t comm = nullptr;
  // Collective over every rank: color = node, key = rank, so the node's ranks keep their order.
  NodeComm(NcclBackend& backend, int node, int rank, const Phase& phase) {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    backend.check(ncclCommSplit(backend.comm(), node, rank, &comm, &config), "ncclCommSplit", __FILE__, __LINE__, phase);
  }
  ~NodeComm() {
    if (comm != nullptr) ncclCommDestroy(comm);
  }
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
};

struct LsaExchange::DevComm {
  ncclComm_t comm;
  ncclDevComm dev{};
  ncclLLA2AHandle counts_a2a{};  // NCCL fills its buffer handle during ncclDevCommCreate
  int counts_elements = 0;       // what the LL all-to-all has room for
  // Collective over the team: LSA barriers, and an LL all-to-all (one block) of
  // `counts_elements` 8-byte elements for the counts.
  DevComm(NcclBackend& backend, ncclComm_t team, int barriers, int elements, const Phase& phase)
      : comm(team), counts_elements(elements) {
    ncclDevResourceRequirements counts_buffer{};
    backend.check(ncclLLA2ACreateRequirement(1, ncclLLA2ACalcSlots(elements, 8), &counts_a2a, &counts_buffer),
                  "ncclLLA2ACreateRequirement", __FILE__, __LINE__, phase);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 29, 0)
    // From 2.29 NCCL takes only requirements made by the initializer (size, magic, and the
    // version of these headers, by which a newer library fills ncclDevComm in their layout).
    ncclDevCommRequirements reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
    ncclDevCommRequirements reqs{};  // 2.28: unversioned (the policy demands the same library)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 31, 0)
    // The kernels were compiled ahead of time against these headers, not JIT-compiled against
    // the library's (the policy's "useRuntimeVersion=false, set").
    reqs.useRuntimeVersion = false;
#endif
    reqs.lsaBarrierCount = barriers;
    reqs.resourceRequirementsList = &counts_buffer;
    backend.check(ncclDevCommCreate(comm, &reqs, &dev), "ncclDevCommCreate", __FILE__, __LINE__, phase);
  }
  ~DevComm() { ncclDevCommDestroy(comm, &dev); }
  DevComm(const DevComm&) = delete;
  DevComm& operator=(const DevComm&) = delete;
};

struct LsaExchange::Window {
  ncclComm_t comm;
  void* base = nullptr;
  std::size_t bytes = 0;
  ncclWindow_t handle = nullptr;
  Window(NcclBackend& backend, ncclComm_t team, std::size_t size, const Phase& phase, int rank, std::string_view impl)
      : comm(team), bytes(size) {
    backend.check(ncclMemAlloc(&base, bytes), "ncclMemAlloc", __FILE__, __LINE__, phase);
    const ncclResult_t rc = ncclCommWindowRegister(comm, base, bytes, &handle, NCCL_WIN_COLL_SYMMETRIC);
    if (rc != ncclSuccess || handle == nullptr) {
      ncclMemFree(base);
      base = nullptr;
    }
    backend.check(rc, "ncclCommWindowRegister", __FILE__, __LINE__, phase);
    // From 2.29 NCCL answers ncclSuccess with a NULL window where the system cannot register
    // one (no symmetric memory support): the kernels would dereference it.
    if (handle == nullptr) {
      throw Error(ErrorKind::Runtime,
                  "--ep-impl " + std::string(impl) + ": rank " + std::to_string(rank) + ": ncclCommWindowRegister returned no window for " +
                      std::to_string(bytes) + " bytes (" + window_mib(bytes) +
                      " MiB of ncclMemAlloc memory): this system cannot register symmetric windows "
                      "(NCCL_DEBUG=INFO says why: CUDA VMM / multicast / P2P support); use --ep-impl alltoallv",
                  "ncclCommWindowRegister", __FILE__, __LINE__);
    }
  }
  ~Window() {
    if (handle != nullptr) ncclCommWindowDeregister(comm, handle);
    if (base != nullptr) ncclMemFree(base);
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

#else

struct LsaExchange::NodeComm {
  ncclComm_t comm = nullptr;
};
struct LsaExchange::DevComm {
  ncclDevComm* dev = nullptr;
  int counts_elements = 0;
};
struct LsaExchange::Window {
  void* base = nullptr;
  std::size_t bytes = 0;
  ncclWindow_t handle = nullptr;
};

#endif

struct LsaExchange::Graphs {
  // [clocked]: with the clock's reset before the kernel (timed one by one), or without it
  // (back to back: nothing of the sweep's between the kernels).
  GraphExec dispatch[2], combine[2];
};

LsaExchange::LsaExchange(World& world, NcclBackend& backend, const Phase& setup, int blocks, const LsaVariant& variant)
    : world_(world), backend_(backend), variant_(variant), asked_blocks_(blocks),
      setup_timeout_s_(setup.deadline.budget_s()) {
  const std::string flag = "--ep-impl " + std::string(variant_.name);
  if (const std::string why = lsa_unavailable(variant_.policy_path); !why.empty()) {
    throw Error(ErrorKind::Usage, flag + ": " + why);
  }
#if COMMSWEEP_NCCL_DEVICE_API
  // Several nodes: the LSA team is the node (a device communicator over everyone would need
  // NCCL's GPU-initiated networking, GIN, between nodes: "GIN not supported" without it), and
  // other nodes are reached by ncclSend / ncclRecv over everyone's communicator.
  const int n = world_.size();
  lsa_peer_.assign(n, -1);
  for (int r = 0, index = 0; r < n; ++r) {
    if (world_.node_of(r) == world_.node_of(world_.rank())) lsa_peer_[r] = index++;
  }
  if (world_.node_count() > 1) {
    node_ = std::make_unique<NodeComm>(backend_, world_.node_of(world_.rank()), world_.rank(), setup);
    graphs_work_ = false;  // the host posts the sends between the kernels
  }
  CS_CUDA(cudaMemcpy(lsa_peer_dev_.grow<int>(n), lsa_peer_.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int device = 0;
  CS_CUDA(cudaGetDevice(&device));
  // Block b of every rank meets block b of the others: every rank launches the fewest blocks
  // any rank can keep resident.
  const auto fewest_of_all = [&](int mine) {
    const auto all = world_.gather(static_cast<double>(mine), setup);
    double fewest = mine;
    for (double b : all) fewest = std::min(fewest, b);
    world_.broadcast(&fewest, sizeof(fewest), 0, setup);
    return static_cast<int>(fewest);
  };
  blocks_ = fewest_of_all(variant_.kernels.max_blocks(device));
  int sms = 0;
  CS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  sm_blocks_ = std::min(fewest_of_all(sms), blocks_);
  if (blocks_ < 1) throw Error(ErrorKind::Usage, flag + ": a GPU cannot keep one block of the kernels resident");
  if (world_.size() > kernels::kLsaRanksMax) {
    throw Error(ErrorKind::Usage, flag + ": " + std::to_string(world_.size()) + " ranks; the lsa kernels take at most " +
                                      std::to_string(kernels::kLsaRanksMax));
  }
  if (asked_blocks_ > blocks_) {
    throw Error(ErrorKind::Usage, "--lsa-blocks " + std::to_string(asked_blocks_) + ": the GPUs keep at most " +
                                      std::to_string(blocks_) + " blocks of the kernels resident (a cooperative launch needs all)");
  }
  // Room in the counts' all-to-all for DeepEP's 256 experts; a case with more grows it.
  devcomm_ = std::make_unique<DevComm>(backend_, team_comm(), kernels::lsa_barrier_count(blocks_),
                                       kernels::lsa_counts_elements(world_.node_size(), 256), setup);
  if (devcomm_->dev.lsaSize != world_.node_size()) {
    // NCCL's LSA team (ranks it reaches by load/store) is smaller than the node commsweep sees
    // (e.g. GPUs without NVLink or P2P between them).
    std::ostringstream why;
    why << flag << ": NCCL's LSA team holds " << devcomm_->dev.lsaSize << " of the "
        << world_.node_size() << " ranks on node " << world_.host()
        << "; these kernels need every rank of a node in one (NVLink or P2P between all its GPUs): "
           "use --ep-impl alltoallv";
    throw Error(ErrorKind::Usage, why.str());
  }
  counts_ready_.emplace();
#else
  (void)setup;
#endif
}

LsaExchange::~LsaExchange() = default;

ncclComm_t LsaExchange::team_comm() const { return node_ ? node_->comm : backend_.comm(); }

std::vector<const char*> LsaExchange::stage_names(bool dispatch) const {
  if (dispatch && node_) {
    return {std::begin(kernels::kLsaDispatchStagesAcrossNodes), std::end(kernels::kLsaDispatchStagesAcrossNodes)};
  }
  if (dispatch) return {std::begin(kernels::kLsaDispatchStages), std::end(kernels::kLsaDispatchStages)};
  if (node_) return {std::begin(kernels::kLsaCombineStagesAcrossNodes), std::end(kernels::kLsaCombineStagesAcrossNodes)};
  return {std::begin(kernels::kLsaCombineStages), std::end(kernels::kLsaCombineStages)};
}

std::string LsaExchange::case_note() const {
  // Per stage the median over this case's runs; a stage ends when its last block (or warp) did.
  std::ostringstream out;
  out << variant_.name << " stages (us, median over the row's runs): dispatch";
  for (int which = 0; which < 2; ++which) {
    const auto& runs = stage_us_[which];
    if (runs.empty()) return "";
    if (which == 1) out << "; combine";
    const std::vector<const char*> names = stage_names(which == 0);
    for (std::size_t k = 0; k < runs.front().size(); ++k) {
      std::vector<double> values;
      for (const auto& r : runs) values.push_back(r[k]);
      std::sort(values.begin(), values.end());
      out << (k ? ", " : " ") << names[k] << " " << std::fixed << std::setprecision(1)
          << values[values.size() / 2];
    }
  }
  out << "; blocks of 512 threads: " << dispatch_blocks_ << " on " << sms_[0] << " SMs (dispatch), " << combine_blocks_
      << " on " << sms_[1] << " (combine)";
  return out.str();
}

int LsaExchange::kernel_sms(bool dispatch) const { return sms_[dispatch ? 0 : 1]; }

std::string LsaExchange::note() const {
  std::ostringstream out;
  if (node_) {
    out << variant_.name << " across " << world_.node_count()
        << " nodes: NCCL device API stores over NVLink within each node (a communicator split by "
           "node), ncclSend / ncclRecv of the records and partials for other nodes (the alltoallv "
           "path), counts by ncclAllGather; its time is the host clock from the first launch to "
           "completion, as the alltoallv path's (the # " << variant_.name << " stages are its node kernels')";
    return out.str();
  }
  out << variant_.name << ": NCCL device API, stores over NVLink, one cooperative kernel each way on ";
  if (asked_blocks_ > 0) {
    out << asked_blocks_ << " blocks x 512 threads (--lsa-blocks)";
  } else {
    out << blocks_ << " blocks x 512 threads (the dispatch of up to " << kOneBlockPerSmTokens << " tokens on "
        << sm_blocks_ << ")";
  }
  out << (graphs_work_ ? ", replayed as CUDA graphs" : "")
      << "; its time is the kernel's own span (first block's start to last block's end, "
         "%globaltimer), as DeepEP's kernel timings";
  return out.str();
}

void LsaExchange::ensure_counts_room(int experts, const Phase& phase) {
  const int elements = kernels::lsa_counts_elements(world_.size(), experts);
  if (node_ || devcomm_->counts_elements >= elements) return;  // across nodes: ncclAllGather
#if COMMSWEEP_NCCL_DEVICE_API
  graphs_.reset();
  backend_.synchronize(phase);
  devcomm_.reset();  // collective: every rank grows at the same case
  devcomm_ = std::make_unique<DevComm>(backend_, team_comm(), kernels::lsa_barrier_count(blocks_), elements, phase);
#else
  (void)phase;
#endif
}

void LsaExchange::ensure_window(std::size_t bytes, const Phase& phase) {
  if (window_ && window_->bytes >= bytes) return;
#if COMMSWEEP_NCCL_DEVICE_API
  graphs_.reset();
  backend_.synchronize(phase);
  window_.reset();  // collective: every rank grows at the same case (sizes follow the case)
  window_ = std::make_unique<Window>(backend_, team_comm(), bytes, phase, world_.rank(), variant_.name);
#else
  (void)bytes;
  (void)phase;
#endif
}

void LsaExchange::prepare(const EpCase& c, const Routing& mine, std::uint64_t seed) {
  const int n = world_.size();
  const std::size_t tokens = static_cast<std::size_t>(c.tokens);
  const Phase phase{"ep lsa set-up (symmetric window)", Deadline::after(setup_timeout_s_)};
  case_ = c;
  // Blocks (--lsa-blocks: both kernels): as many as stay resident (two an SM), but the dispatch
  // of up to kOneBlockPerSmTokens tokens one an SM: pieces of every token spread over all SMs
  // either way. Measured on 4 x H200 (results/figures-log.md, version 8): the dispatch of 128
  // tokens took 29.7 us on 132 blocks against 35.1 on 260 (call 12; in call 11 its copies' tail
  // was 4.9 against 9.9 us), faster up to 1024 tokens, slower from 2048 (4096 bf16: 514.4
  // against 496.4); the combine was slower on 132 blocks from 256 tokens (51.4 against 47.7).
  // Both counts are every rank's fewest, so that every rank launches the same.
  dispatch_blocks_ = asked_blocks_ > 0 ? asked_blocks_ : c.tokens <= kOneBlockPerSmTokens ? sm_blocks_ : blocks_;
  combine_blocks_ = asked_blocks_ > 0 ? asked_blocks_ : blocks_;
  kernels::LsaArgs& a = args_;
  a.shape = shape_of(c, world_.rank(), n);
  const std::size_t records_max = tokens * n;  // records here, and partials here: ranks x tokens each
  const std::size_t entries_max = static_cast<std::size_t>(a.shape.entries_room) * n;
  // One node and few tokens: a marked dispatch, its headers and grouped buffer twice
  // (kernels/ep_lsa.hpp), as the combine's partials are marked.
  a.schedule.dispatch_marked =
      kernels::lsa_dispatch_marked(static_cast<long long>(records_max), static_cast<std::uint32_t>(c.hidden),
                                   kernels::lsa_storing_warps(combine_blocks_, kCombineHelpers), !node_)
          ? 1
          : 0;
  a.schedule.dispatch_helpers = kDispatchHelpers;
  a.schedule.combine_helpers = kCombineHelpers;
  a.schedule.flag_batch = kFlagBatch;
  const WindowPlan plan = window_plan(a.shape, a.schedule.dispatch_marked != 0);
  const std::size_t window_end = plan.end, partials_bytes = plan.partials_bytes;
  a.window = plan.parts;
  ensure_window(window_end, phase);
  ensure_counts_room(c.experts, phase);
#if COMMSWEEP_NCCL_DEVICE_API
  a.signals.counts_a2a_buffer = devcomm_->counts_a2a.bufHandle;
  a.signals.counts_a2a_slots = devcomm_->counts_a2a.nSlots;
#endif
  a.window.handle = window_->handle;
  a.input.payload = input_.grow<std::uint8_t>(tokens * a.shape.f.payload_stride);
  a.input.idx = idx_.grow<std::int32_t>(tokens * c.topk);
  a.input.weights = weights_.grow<float>(tokens * c.topk);
  a.layout.slot = slot_.grow<int>(tokens * n);
  a.layout.chunk_counts = chunk_counts_.grow<int>(static_cast<std::size_t>(kernels::lsa_layout_chunks(c.tokens)) *
                                           (static_cast<std::size_t>(n) + c.experts));
  a.layout.send_counts = send_counts_.grow<int>(static_cast<std::size_t>(n) + c.experts);  // one row: ranks, experts
  a.layout.expert_sends = a.layout.send_counts + n;
  a.layout.rank_in_expert = rank_in_expert_.grow<int>(tokens * c.topk);
  a.layout.expert_start = expert_start_.grow<int>(c.experts);
  a.counts.counts_copy = counts_copy_.grow<int>(static_cast<std::size_t>(n) * n);
  a.counts.starts = starts_.grow<int>(static_cast<std::size_t>(kernels::kLsaStartKinds) * n);
  a.counts.expert_counts = expert_counts_.grow<int>(static_cast<std::size_t>(a.shape.local_experts) * n);
  a.counts.expert_base = expert_base_.grow<int>(static_cast<std::size_t>(a.shape.local_experts) * n);
  grouped_bytes_ = entries_max * a.shape.f.payload_stride;
  a.combine.expert_output = expert_output_.grow<std::uint16_t>(entries_max * c.hidden);
  a.combine.out = out_.grow<std::uint16_t>(tokens * c.hidden);
  a.timing.clock = clock_.grow<unsigned long long>(kernels::kLsaClockSlots + kernels::kLsaSmWords);
  a.signals.sync = sync_.grow<unsigned>(kernels::kLsaSyncWords);
  a.nodes.lsa_peer = lsa_peer_dev_.get<int>();
  if (node_) {
    // Room for every token to every rank and every rank's tokens here, as the window's.
    const std::size_t row = static_cast<std::size_t>(n) + c.experts;
    a.nodes.gathered = gathered_.grow<int>(row * n);
    a.nodes.remote_send = remote_send_.grow<std::uint8_t>(records_max * kernels::lsa_remote_record_bytes(a));
    a.nodes.remote_recv = remote_recv_.grow<std::uint8_t>(records_max * kernels::lsa_remote_record_bytes(a));
    a.nodes.remote_partials = remote_partials_.grow<std::uint16_t>(records_max * c.hidden);
    host_gathered_.grow<int>(row * n);
  }
  stage_us_[0].clear();
  stage_us_[1].clear();
  sms_[0] = sms_[1] = 0;

  const cudaStream_t stream = backend_.stream();
  upload_case(input_.get<std::uint8_t>(), idx_.get<std::int32_t>(), weights_.get<float>(), c.tokens,
              a.shape.f, mine, seed, a.shape.rank, stream);
  // Flags and epochs from zero, and the partials all ones (unset marks), on every rank
  // (kernels/ep_lsa_sync.cuh): what the window held before (another case's payloads or
  // partials) must not read as a flag or a landed partial. A peer's first stores of the case
  // come after the barrier at the end of this, so after these landed (the stream is
  // synchronized before it).
  auto* base = static_cast<char*>(window_->base);
  CS_CUDA(cudaMemsetAsync(base + a.window.partials_offset, 0xFF, partials_bytes, stream));
  if (a.schedule.dispatch_marked) {  // both regions' headers and grouped buffers unset
    CS_CUDA(cudaMemsetAsync(base + a.window.headers_offset, 0xFF, a.window.partials_offset - a.window.headers_offset, stream));
  }
  dispatches_ = 0;
  CS_CUDA(cudaMemsetAsync(base + a.window.flags_offset, 0, window_end - a.window.flags_offset, stream));
  CS_CUDA(cudaMemsetAsync(a.signals.sync, 0, kernels::kLsaSyncWords * sizeof(unsigned), stream));

#if COMMSWEEP_NCCL_DEVICE_API
  // The kernels' arguments are fixed for the case: capture each once, replay it every time.
  graphs_.reset();
  if (graphs_work_) {
    auto graphs = std::make_unique<Graphs>();
    auto capture = [&](bool dispatch, bool clocked, GraphExec& exec) {
      return exec.capture(stream, [&] { return launch(dispatch, clocked, stream); });
    };
    graphs_work_ = capture(true, true, graphs->dispatch[1]) && capture(false, true, graphs->combine[1]) &&
                   capture(true, false, graphs->dispatch[0]) && capture(false, false, graphs->combine[0]);
    if (graphs_work_) {
      graphs_ = std::move(graphs);
    } else {
      cudaGetLastError();  // a capture that failed leaves its error behind: launch directly
    }
  }
#endif
  // Every rank's zeroes in place before any rank's first stores of the case.
  CS_CUDA(cudaStreamSynchronize(stream));
  world_.barrier(phase);
}

double LsaExchange::timed(bool dispatch, const Phase& phase) {
#if COMMSWEEP_NCCL_DEVICE_API
  const cudaStream_t stream = backend_.stream();
  if (dispatch) ++dispatches_;  // the launch's epoch (kernels/ep_lsa_sync.cuh)
  const bool clocked = !back_to_back_;
  if (graphs_) {
    CS_CUDA(cudaGraphLaunch((dispatch ? graphs_->dispatch[clocked] : graphs_->combine[clocked]).get(), stream));
  } else {
    CS_CUDA(launch(dispatch, clocked, stream));
  }
  backend_.synchronize(phase);  // polled against the deadline: a rank that never comes is named
  return clocked ? record_stages(dispatch) : 0.0;
#else
  (void)dispatch;
  (void)phase;
  return 0;
#endif
}

double LsaExchange::record_stages(bool dispatch) {
  unsigned long long clock[kernels::kLsaClockSlots + kernels::kLsaSmWords] = {};
  CS_CUDA(cudaMemcpy(clock, clock_.get(), sizeof(clock), cudaMemcpyDeviceToHost));
  int sms = 0;
  for (int w = 0; w < kernels::kLsaSmWords; ++w) sms += __builtin_popcountll(clock[kernels::kLsaClockSlots + w]);
  sms_[dispatch ? 0 : 1] = std::max(sms_[dispatch ? 0 : 1], sms);
  // Each stage from the previous mark (the start first) to its own; the last to the end.
  const std::size_t stages = stage_names(dispatch).size();
  std::vector<double> spans;
  unsigned long long from = clock[0];
  for (std::size_t k = 0; k < stages; ++k) {
    const unsigned long long to = k + 1 < stages ? clock[2 + k] : clock[1];
    spans.push_back(to > from ? static_cast<double>(to - from) / 1000.0 : 0.0);
    from = std::max(from, to);
  }
  stage_us_[dispatch ? 0 : 1].push_back(std::move(spans));
  return clock[1] > clock[0] ? static_cast<double>(clock[1] - clock[0]) / 1000.0 : 0.0;
}

// This rank's records by destination and by source, from the gathered counts on the host.
void LsaExchange::read_host_counts() {
  const int n = world_.size(), me = world_.rank();
  const std::size_t row = static_cast<std::size_t>(n) + case_.experts;
  const int* gathered = host_gathered_.get<int>();
  records_to_.assign(n, 0);
  records_from_.assign(n, 0);
  for (int p = 0; p < n; ++p) {
    records_to_[p] = gathered[static_cast<std::size_t>(me) * row + p];
    records_from_[p] = gathered[static_cast<std::size_t>(p) * row + me];
  }
}

// Only the pieces of ranks on other nodes (the node's go by stores).
std::vector<int> LsaExchange::other_nodes(const std::vector<int>& counts) const {
  std::vector<int> kept(counts.size(), 0);
  for (std::size_t p = 0; p < counts.size(); ++p) {
    if (lsa_peer_[p] < 0) kept[p] = counts[p];
  }
  return kept;
}

// The layout, the counts gathered over all ranks (ncclAllGather: every rank learns every
// count, as the barrier after the stored counts does on one node), the dispatch kernel (node
// peers by stores, other nodes' records packed), then, once the counts are on the host, the
// packed records by ncclSend / ncclRecv and their unpacking.
double LsaExchange::dispatch_across_nodes(const Phase& phase) {
  const auto start = std::chrono::steady_clock::now();
  const int n = world_.size();
  const std::size_t row = static_cast<std::size_t>(n) + case_.experts;
  const cudaStream_t stream = backend_.stream();
  const ncclComm_t comm = backend_.comm();
  CS_CUDA(kernels::lsa_layout(args_, dispatch_blocks_, stream));
  CS_LSA_NCCL(ncclAllGather(args_.layout.send_counts, const_cast<int*>(args_.nodes.gathered), row, ncclInt32, comm, stream), phase);
  CS_CUDA(cudaMemcpyAsync(host_gathered_.get(), args_.nodes.gathered, row * n * sizeof(int), cudaMemcpyDeviceToHost,
                          stream));
  CS_CUDA(cudaEventRecord(counts_ready_->get(), stream));
  CS_CUDA(launch(true, !back_to_back_, stream));
  backend_.wait(counts_ready_->get(), phase);
  read_host_counts();
  // The packed records, back to back by peer on both sides (as the kernels laid them out).
  grouped_send_recv(backend_, args_.nodes.remote_send, packed(other_nodes(records_to_)),
                    const_cast<std::uint8_t*>(args_.nodes.remote_recv), packed(other_nodes(records_from_)),
                    kernels::lsa_remote_record_bytes(args_), phase);
  CS_CUDA(kernels::lsa_unpack_remote(args_, dispatch_blocks_, stream));
  backend_.synchronize(phase);
  if (!back_to_back_) record_stages(true);
  return elapsed_us(start);
}

// The combine kernel (partials to node peers by stores, other nodes' into a local buffer, then
// the node's barrier), the partials by ncclSend / ncclRecv straight into the window's partials
// buffer, then the reduction.
double LsaExchange::combine_across_nodes(const Phase& phase) {
  const auto start = std::chrono::steady_clock::now();
  const cudaStream_t stream = backend_.stream();
  CS_CUDA(launch(false, !back_to_back_, stream));
  // Sent: the partials of other nodes' tokens that came here, at their records' places (rank p's
  // from p x tokens). Received: straight into the window's partials buffer, at the places the
  // reduction reads (rank p's from p x tokens).
  std::vector<std::size_t> places(records_from_.size());
  for (std::size_t p = 0; p < places.size(); ++p) places[p] = p * static_cast<std::size_t>(case_.tokens);
  grouped_send_recv(backend_, args_.nodes.remote_partials, {other_nodes(records_from_), places},
                    static_cast<std::uint8_t*>(window_->base) + args_.window.partials_offset,
                    {other_nodes(records_to_), places}, 2u * static_cast<std::size_t>(case_.hidden), phase);
  CS_CUDA(kernels::lsa_reduce(args_, combine_blocks_, stream));
  backend_.synchronize(phase);
  if (!back_to_back_) record_stages(false);
  return elapsed_us(start);
}

cudaError_t LsaExchange::launch(bool dispatch, bool clocked, cudaStream_t stream) {
#if COMMSWEEP_NCCL_DEVICE_API
  // The clock's start as the largest value (all 0xFF bytes), its end 0. Not back to back: the
  // kernels then still write it, and nothing reads it.
  if (clocked) {
    if (const cudaError_t rc = cudaMemsetAsync(args_.timing.clock, 0xFF, sizeof(*args_.timing.clock), stream); rc != cudaSuccess) {
      return rc;
    }
    if (const cudaError_t rc = cudaMemsetAsync(args_.timing.clock + 1, 0,
                                               (kernels::kLsaClockSlots - 1 + kernels::kLsaSmWords) * sizeof(*args_.timing.clock),
                                               stream);
        rc != cudaSuccess) {
      return rc;
    }
  }
  kernels::LsaArgs k = args_;
  // Barrier indices follow the device communicator's block count, whatever this case launches.
  k.schedule.barrier_base = dispatch ? 0 : blocks_;
  return dispatch ? variant_.kernels.dispatch(devcomm_->dev, k, dispatch_blocks_, stream)
                  : variant_.kernels.combine(devcomm_->dev, k, combine_blocks_, stream);
#else
  (void)dispatch;
  (void)clocked;
  (void)stream;
  return cudaErrorNotSupported;
#endif
}

double LsaExchange::dispatch(const Phase& phase) {
  return node_ ? dispatch_across_nodes(phase) : timed(true, phase);
}
double LsaExchange::combine(const Phase& phase) {
  return node_ ? combine_across_nodes(phase) : timed(false, phase);
}

std::uint8_t* LsaExchange::grouped_of(unsigned epoch) const {
  return static_cast<std::uint8_t*>(window_->base) + kernels::lsa_grouped_at(args_, epoch);
}

void LsaExchange::run_experts(const Phase& phase) {
  const kernels::LsaArgs& a = args_;
  CS_CUDA(kernels::run_experts(grouped(), a.counts.expert_counts, a.counts.expert_base, a.shape.local_experts, a.shape.nranks,
                               a.shape.first_expert, a.shape.f, expert_output_.get<std::uint16_t>(),
                               backend_.stream()));
  backend_.synchronize(phase);
}

void LsaExchange::poison() {
  const cudaStream_t stream = backend_.stream();
  // The region the next dispatch fills (a marked one's is all ones already: its unset marks).
  if (grouped_bytes_ > 0) CS_CUDA(cudaMemsetAsync(grouped_of(dispatches_ + 1), 0xFF, grouped_bytes_, stream));
  CS_CUDA(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream));
  CS_CUDA(cudaStreamSynchronize(stream));
}

EpResult LsaExchange::result() {
  const kernels::LsaArgs& a = args_;
  const int n = world_.size();
  std::vector<int> counts(static_cast<std::size_t>(n) * n);
  CS_CUDA(cudaMemcpy(counts.data(), a.counts.counts_copy, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));
  EpDeviceView view;
  view.recv_counts.resize(n);
  for (int s = 0; s < n; ++s) view.recv_counts[s] = counts[static_cast<std::size_t>(s) * n + a.shape.rank];
  // The headers stand for the records (rank s's from s x tokens): experts first, then weights.
  view.records = static_cast<const std::uint8_t*>(window_->base) + kernels::lsa_headers_at(a, dispatches_);
  view.records_room = case_.tokens;
  view.format = a.shape.f;
  view.format.idx_offset = 0;
  view.format.weight_offset = 4 * a.shape.f.topk;
  view.format.bytes = a.shape.header_bytes;
  view.expert_counts = a.counts.expert_counts;
  view.expert_base = a.counts.expert_base;
  view.expert_sources = n;
  view.local_experts = a.shape.local_experts;
  view.expert_payload = grouped();
  view.expert_payload_bytes = grouped_bytes_;
  view.combined = a.combine.out;
  view.tokens = case_.tokens;
  return read_device_result(view);
}

}  // namespace commsweep::ep
