#include "pattern/spec.hpp"

#include <algorithm>
#include <cstring>

namespace commsweep {
namespace {

using pattern::Format;

// The largest integer that the type holds exactly, capped so that sums stay exact in double.
std::int64_t exact_integer_limit(DataType t) {
  switch (t) {
    case DataType::Int8: return 127;
    case DataType::Uint8: return 255;
    case DataType::Int32: case DataType::Uint32: return std::int64_t{1} << 30;
    case DataType::Int64: case DataType::Uint64: return std::int64_t{1} << 40;
    case DataType::Float16: return 2048;          // 11 significant bits
    case DataType::Float32: return std::int64_t{1} << 24;
    case DataType::Float64: return std::int64_t{1} << 40;
    case DataType::Bfloat16: return 256;          // 8 significant bits
    case DataType::Float8E4M3: return 16;         // 4 significant bits
    case DataType::Float8E5M2: return 8;          // 3 significant bits
  }
  return 1;
}

// How many factors of 2 a product may hold without overflow or rounding.
int product_bits(DataType t) {
  switch (t) {
    case DataType::Int8: return 6;
    case DataType::Uint8: return 7;
    case DataType::Float8E4M3: return 8;  // largest finite 448
    case DataType::Float16: case DataType::Float8E5M2: return 15;
    default: return 30;
  }
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

void store_bits(void* base, std::size_t i, std::size_t bytes, std::uint64_t bits) {
  std::memcpy(static_cast<char*>(base) + i * bytes, &bits, bytes);  // little-endian hosts
}

std::uint64_t load_bits(const void* base, std::size_t i, std::size_t bytes) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(base) + i * bytes, bytes);
  return bits;
}

}  // namespace

Format format_of(DataType t) {
  const auto bytes = static_cast<std::uint8_t>(element_size(t));
  switch (t) {
    case DataType::Int8: case DataType::Int32: case DataType::Int64:
      return {bytes, pattern::kSigned, 0, 0};
    case DataType::Uint8: case DataType::Uint32: case DataType::Uint64:
      return {bytes, pattern::kUnsigned, 0, 0};
    case DataType::Float16: return {2, pattern::kFloat, 5, 10};
    case DataType::Float32: return {4, pattern::kFloat, 8, 23};
    case DataType::Float64: return {8, pattern::kFloat, 11, 52};
    case DataType::Bfloat16: return {2, pattern::kFloat, 8, 7};
    case DataType::Float8E4M3: return {1, pattern::kFloat, 4, 3};
    case DataType::Float8E5M2: return {1, pattern::kFloat, 5, 2};
  }
  return {bytes, pattern::kUnsigned, 0, 0};
}

pattern::Spec make_spec(DataType t, RedOp op, int nranks, std::uint64_t seed) {
  pattern::Spec s{};
  s.fmt = format_of(t);
  s.op = static_cast<std::uint8_t>(op);
  s.nranks = nranks;
  s.seed = seed;
  s.vmax = 1;
  s.avg_multiple = 1;
  s.avg_scale = 0;
  const std::int64_t limit = exact_integer_limit(t);
  int contributors = nranks;
  switch (op) {
    case RedOp::Sum:
      s.vmax = static_cast<int>(std::min<std::int64_t>(4, limit));
      contributors = static_cast<int>(std::clamp<std::int64_t>(limit / s.vmax, 1, nranks));
      break;
    case RedOp::Prod:
      contributors = std::min(nranks, product_bits(t));
      break;
    case RedOp::Max: case RedOp::Min:
      s.vmax = static_cast<int>(std::min<std::int64_t>(limit - 1, 100));
      contributors = std::min(nranks, 8);  // bounds the cost of computing the expectation
      break;
    case RedOp::Avg:
      // One contributor per element: the average is then exact up to the rounding of
      // 1/nranks, which both sides apply the same way.
      contributors = 1;
      if (is_floating(t)) {
        s.avg_scale = pattern::from_bits(pattern::to_bits(1.0 / nranks, s.fmt), s.fmt);
      } else {
        s.avg_multiple = nranks <= limit ? nranks : 1;
        s.vmax = static_cast<int>(std::clamp<std::int64_t>(limit / s.avg_multiple, 1, 4));
      }
      break;
    case RedOp::None:
      break;
  }
  s.period = ceil_div(nranks, std::max(contributors, 1));
  return s;
}

void fill_host(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) {
  for (std::size_t i = 0; i < count; ++i) {
    store_bits(buffer, i, spec.fmt.bytes, pattern::input_bits(spec, rank, i));
  }
}

void poison_host(void* buffer, std::size_t count, const pattern::Expect& expect) {
  for (std::size_t i = 0; i < count; ++i) {
    store_bits(buffer, i, expect.spec.fmt.bytes, ~pattern::expected_bits(expect, i));
  }
}

Mismatch verify_host(const void* buffer, std::size_t count, const pattern::Expect& expect) {
  Mismatch m;
  const std::uint64_t mask = pattern::width_mask(expect.spec.fmt);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t want = pattern::expected_bits(expect, i) & mask;
    const std::uint64_t got = load_bits(buffer, i, expect.spec.fmt.bytes);
    if (want != got) {
      if (m.wrong == 0) m = {0, i, want, got};
      ++m.wrong;
    }
  }
  return m;
}

}  // namespace commsweep
