#include "comm/mpi/mpi_backend.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "comm/collective_call.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/strings.hpp"
#include "runtime/mpi_check.hpp"

namespace commsweep {
namespace {

// MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read (then nothing is refused).
std::uint64_t host_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;  // kB
  }
  return 0;
}

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : storage_(bytes) {}
  void* data() override { return storage_.data(); }
  std::size_t bytes() const override { return storage_.size(); }

 private:
  std::vector<unsigned char> storage_;
};

bool is_small_float(DataType t) {
  return t == DataType::Float16 || t == DataType::Bfloat16 || t == DataType::Float8E4M3 ||
         t == DataType::Float8E5M2;
}

// MPI has no 16- or 8-bit floats: these reduce element by element through double, which is
// exact for every value and rounds the result to nearest even like the GPU does.
template <DataType T, RedOp Op>
void reduce_small_float(void* in, void* inout, int* len, MPI_Datatype*) {
  const pattern::Format f = format_of(T);
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int i = 0; i < *len; ++i) {
    std::uint64_t xa = 0, xb = 0;
    std::memcpy(&xa, a + i * f.bytes, f.bytes);
    std::memcpy(&xb, b + i * f.bytes, f.bytes);
    const double va = pattern::from_bits(xa, f);
    const double vb = pattern::from_bits(xb, f);
    double r = 0;
    if constexpr (Op == RedOp::Sum) r = va + vb;
    if constexpr (Op == RedOp::Prod) r = va * vb;
    if constexpr (Op == RedOp::Max) r = va > vb ? va : vb;
    if constexpr (Op == RedOp::Min) r = va < vb ? va : vb;
    const std::uint64_t out = pattern::to_bits(r, f);
    std::memcpy(b + i * f.bytes, &out, f.bytes);
  }
}

template <DataType T>
MPI_User_function* small_float_function(RedOp op) {
  switch (op) {
    case RedOp::Sum: case RedOp::Avg: return &reduce_small_float<T, RedOp::Sum>;
    case RedOp::Prod: return &reduce_small_float<T, RedOp::Prod>;
    case RedOp::Max: return &reduce_small_float<T, RedOp::Max>;
    case RedOp::Min: return &reduce_small_float<T, RedOp::Min>;
    default: return nullptr;
  }
}

MPI_User_function* small_float_function(DataType t, RedOp op) {
  switch (t) {
    case DataType::Float16: return small_float_function<DataType::Float16>(op);
    case DataType::Bfloat16: return small_float_function<DataType::Bfloat16>(op);
    case DataType::Float8E4M3: return small_float_function<DataType::Float8E4M3>(op);
    case DataType::Float8E5M2: return small_float_function<DataType::Float8E5M2>(op);
    default: return nullptr;
  }
}

}  // namespace

MemoryRoom host_memory_room(int local_ranks) {
  const std::uint64_t available = host_memory_available();
  if (available == 0) return {};
  const int ranks = std::max(1, local_ranks);
  return {available / static_cast<std::uint64_t>(ranks),
          "its share of the host's available memory (" + binary_size_text(available) + " over " +
              count_of(static_cast<std::size_t>(ranks), "rank") + ")"};
}

MpiBackend::MpiBackend(World& world) : world_(world) {}

MemoryRoom MpiBackend::memory_room() const { return host_memory_room(world_.local_size()); }

MpiBackend::~MpiBackend() {
  for (auto& entry : user_ops_) MPI_Op_free(&entry.second);
}

std::string MpiBackend::unsupported(DataType, RedOp) const { return {}; }

std::string MpiBackend::caveat(DataType type, RedOp op) const {
  if (!is_small_float(type) || op == RedOp::None) return {};
  // Measured on 2 ranks of a 2-core machine: bfloat16 46x float's time at 32 KiB, 105x at
  // 512 KiB (docs/collectives.md, "Backends").
  return std::string(name_of(type)) + " is reduced on the host here (MPI has no " +
         std::to_string(8 * element_size(type)) +
         "-bit float: a user MPI_Op takes each element through double, exact but tens of times slower than "
         "float): its times are the host's arithmetic, not the fabric's (docs/collectives.md#backends)";
}

std::string MpiBackend::asynchronous_error() {
  const char* why = aborted_why_.load();
  return why != nullptr ? std::string(why) + " (mpi backend)" : "";
}

std::unique_ptr<Buffer> MpiBackend::allocate(std::size_t bytes) {
  // Linux overcommits: a buffer larger than the memory left is granted and then zero-filled,
  // and the OOM killer ends a rank (SIGKILL, no message). Refused here instead, with the
  // figures, when it is more than this rank's share of what the host has available now.
  const MemoryRoom room = memory_room();
  if (room.bytes > 0 && bytes > room.bytes) {
    throw Error(ErrorKind::OutOfMemory, binary_size_text(bytes) + " is more than " + binary_size_text(room.bytes) +
                                            ", " + room.what);
  }
  return std::make_unique<HostBuffer>(bytes);
}

void MpiBackend::fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) {
  fill_host(buffer, count, spec, rank);
}

void MpiBackend::poison(void* buffer, std::size_t count, const pattern::Expect& expect) {
  poison_host(buffer, count, expect);
}

Mismatch MpiBackend::verify(const void* buffer, std::size_t count, const pattern::Expect& expect) {
  return verify_host(buffer, count, expect);
}

void MpiBackend::corrupt(void* buffer, std::size_t index, std::size_t element_bytes) {
  auto* p = static_cast<unsigned char*>(buffer) + index * element_bytes;
  p[0] ^= 0x01;
}

MPI_Datatype MpiBackend::datatype_of(DataType type) const {
  switch (type) {
    case DataType::Int8: return MPI_INT8_T;
    case DataType::Uint8: return MPI_UINT8_T;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::Uint32: return MPI_UINT32_T;
    case DataType::Int64: return MPI_INT64_T;
    case DataType::Uint64: return MPI_UINT64_T;
    case DataType::Float32: return MPI_FLOAT;
    case DataType::Float64: return MPI_DOUBLE;
    case DataType::Float16: case DataType::Bfloat16: return MPI_UINT16_T;
    case DataType::Float8E4M3: case DataType::Float8E5M2: return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

MPI_Op MpiBackend::op_of(DataType type, RedOp op) {
  if (is_small_float(type)) {
    auto key = std::make_pair(type, op == RedOp::Avg ? RedOp::Sum : op);
    auto it = user_ops_.find(key);
    if (it != user_ops_.end()) return it->second;
    MPI_Op created;
    CS_MPI(MPI_Op_create(small_float_function(type, op), 1, &created));
    user_ops_.emplace(key, created);
    return created;
  }
  switch (op) {
    case RedOp::Sum: case RedOp::Avg: return MPI_SUM;  // avg: sum, then scaled (finish_average)
    case RedOp::Prod: return MPI_PROD;
    case RedOp::Max: return MPI_MAX;
    case RedOp::Min: return MPI_MIN;
    case RedOp::None: break;
  }
  return MPI_OP_NULL;
}

// MPI has no average: sum, then scale as NCCL does (floats times 1/n rounded to the type,
// integers divided by n).
void MpiBackend::finish_average(const CollectiveArgs& a) {
  if (a.op != RedOp::Avg) return;
  const pattern::Format f = format_of(a.type);
  const int n = world_.size();
  const double scale = pattern::from_bits(pattern::to_bits(1.0 / n, f), f);
  auto* p = static_cast<unsigned char*>(a.recv);
  for (std::size_t i = 0; i < a.count; ++i) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, p + i * f.bytes, f.bytes);
    const double v = pattern::from_bits(bits, f);
    const double r = f.kind == pattern::kFloat ? v * scale : std::trunc(v / n);
    bits = pattern::to_bits(r, f);
    std::memcpy(p + i * f.bytes, &bits, f.bytes);
  }
}

// The collective's own MPI calls (comm/calls/<name>.cpp) issue each iteration; the clock, the
// waits against the deadline and the average are the same for every collective.
double MpiBackend::run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) {
  if (timing.graph_launches > 0) {
    throw Error(ErrorKind::Usage, "-G/--cudagraph needs the nccl backend");
  }
  const CollectiveCall& call = *args.call;
  MpiCallContext ctx;
  ctx.comm = world_.comm();
  ctx.rank = world_.rank();
  ctx.size = world_.size();
  ctx.datatype = datatype_of(args.type);
  ctx.element_bytes = element_size(args.type);
  ctx.op = [this, type = args.type, op = args.op] { return op_of(type, op); };
  if (call.mpi_prepare != nullptr) call.mpi_prepare(ctx, args);
  std::vector<MPI_Request> reqs;
  reqs.reserve(4);
  // Per iteration: MPI_Wtime after each (one clock read, no system call); the span is timed as
  // before, from the first issue to the last completion.
  std::vector<double>* each = timing.iteration_us;
  if (each != nullptr) {
    each->clear();
    each->reserve(static_cast<std::size_t>(timing.iters));
  }
  const double start = MPI_Wtime();
  double mark = start;
  for (int i = 0; i < timing.iters; ++i) {
    const CollectiveArgs a = at_offset(args, timing.slices.offset(static_cast<std::size_t>(i)));
    reqs.clear();
    call.mpi_issue(ctx, a, reqs);
    world_.wait_all(reqs, phase);
    const bool holds_result = call.mpi_complete == nullptr || call.mpi_complete(ctx, a);
    if (holds_result) finish_average(a);
    if (each != nullptr) {
      const double now = MPI_Wtime();
      each->push_back((now - mark) * 1e6);
      mark = now;
    }
  }
  const double elapsed = MPI_Wtime() - start;
  return elapsed * 1e6 / timing.iters;
}

}  // namespace commsweep
