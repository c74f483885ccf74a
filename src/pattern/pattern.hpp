// The data pattern every sweep sends and verifies, shared by host code (mpi backend, tests)
// and device code (kernels/pattern.cu). Plain C++ on plain structs so both compilers take it.
//
// Why it is exact: for reductions, element i holds a non-neutral value only on the ranks r
// with (i + r) % period == 0, at most `contributors` of them, and those values are small
// integers (sum, min, max), +-1 or +-2 (prod) or powers of two (avg) chosen so that every
// partial result is exactly representable in the element type. Any reduction order then
// gives the same bits, and the expected output is computed locally, bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CS_HD __host__ __device__ __forceinline__
#else
#define CS_HD inline
#endif

namespace commsweep::pattern {

enum Kind : std::uint8_t { kUnsigned = 0, kSigned = 1, kFloat = 2 };
// Same order as commsweep::RedOp.
enum Op : std::uint8_t { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4, kNone = 5 };

struct Format {
  std::uint8_t bytes;
  std::uint8_t kind;
  std::uint8_t exp_bits;  // floats only
  std::uint8_t man_bits;  // floats only, without the implicit bit
};

struct Spec {
  Format fmt;
  std::uint8_t op;
  std::int32_t nranks;
  std::uint64_t seed;
  std::int32_t period;        // rank r contributes to element i iff (i + r) % period == 0
  std::int32_t vmax;          // largest magnitude of a contributed value (sum, min, max, avg)
  std::int32_t avg_multiple;  // integer avg: contributed values are multiples of this
  double avg_scale;           // floating avg: 1/nranks rounded to the element type
};

// What one output element must hold: a reduction over ranks at index_base + i, or a copy of
// rank src's input at index_base + i % chunk, where src = i / chunk (chunk > 0) or src_rank.
struct Expect {
  Spec spec;
  std::uint8_t reduced;
  std::int32_t src_rank;
  std::uint64_t chunk;
  std::uint64_t index_base;
};

CS_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

CS_HD std::uint64_t hash(std::uint64_t seed, std::int32_t rank, std::uint64_t index) {
  return splitmix64(seed ^ splitmix64(index * 0x100000001B3ull + static_cast<std::uint64_t>(rank)));
}

CS_HD std::uint64_t width_mask(const Format& f) {
  return f.bytes >= 8 ? ~0ull : ((1ull << (8 * f.bytes)) - 1);
}

// IEEE-style encoding of x into a float format of exp_bits/man_bits, rounding to nearest even.
// Used for the 16- and 8-bit formats; fp8 e4m3's missing infinities do not matter for the
// small values the pattern uses.
CS_HD std::uint64_t encode_small_float(double x, const Format& f) {
  const std::uint64_t sign = x < 0 ? 1ull << (f.exp_bits + f.man_bits) : 0;
  const double a = x < 0 ? -x : x;
  if (a == 0) return sign;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  int e = 0;
  (void)::frexp(a, &e);
  int unbiased = e - 1;  // a = 1.m * 2^unbiased
  std::uint64_t biased;
  double mant;
  if (unbiased + bias >= 1) {
    mant = ::rint((::ldexp(a, -unbiased) - 1.0) * static_cast<double>(1ull << f.man_bits));
    biased = static_cast<std::uint64_t>(unbiased + bias);
    if (mant >= static_cast<double>(1ull << f.man_bits)) {
      mant = 0;
      ++biased;
    }
  } else {
    mant = ::rint(::ldexp(a, bias - 1 + f.man_bits));
    biased = 0;
    if (mant >= static_cast<double>(1ull << f.man_bits)) {
      mant = 0;
      biased = 1;
    }
  }
  return sign | (biased << f.man_bits) | static_cast<std::uint64_t>(mant);
}

CS_HD double decode_small_float(std::uint64_t bits, const Format& f) {
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const std::uint64_t man = bits & ((1ull << f.man_bits) - 1);
  const int biased = static_cast<int>((bits >> f.man_bits) & ((1ull << f.exp_bits) - 1));
  const bool negative = (bits >> (f.exp_bits + f.man_bits)) & 1;
  double v = biased == 0
                 ? ::ldexp(static_cast<double>(man), 1 - bias - f.man_bits)
                 : ::ldexp(1.0 + ::ldexp(static_cast<double>(man), -f.man_bits), biased - bias);
  return negative ? -v : v;
}

// The bits of value v (an exact value of the format) in format f.
CS_HD std::uint64_t to_bits(double v, const Format& f) {
  if (f.kind != kFloat) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) & width_mask(f);
  }
  if (f.bytes == 8) {
    std::uint64_t b;
    ::memcpy(&b, &v, 8);
    return b;
  }
  if (f.bytes == 4) {
    const float x = static_cast<float>(v);
    std::uint32_t b;
    ::memcpy(&b, &x, 4);
    return b;
  }
  return encode_small_float(v, f);
}

CS_HD double from_bits(std::uint64_t bits, const Format& f) {
  bits &= width_mask(f);
  if (f.kind == kUnsigned) return static_cast<double>(bits);
  if (f.kind == kSigned) {
    const unsigned shift = 64 - 8 * f.bytes;
    return static_cast<double>(static_cast<std::int64_t>(bits << shift) >> shift);
  }
  if (f.bytes == 8) {
    double v;
    ::memcpy(&v, &bits, 8);
    return v;
  }
  if (f.bytes == 4) {
    const auto b = static_cast<std::uint32_t>(bits);
    float x;
    ::memcpy(&x, &b, 4);
    return x;
  }
  return decode_small_float(bits, f);
}

CS_HD bool contributes(const Spec& s, std::int32_t rank, std::uint64_t index) {
  return s.period <= 1 || (index + static_cast<std::uint64_t>(rank)) % s.period == 0;
}

// The value rank `rank` holds at `index` for a reduction.
CS_HD double input_value(const Spec& s, std::int32_t rank, std::uint64_t index) {
  const std::uint64_t h = hash(s.seed, rank, index);
  const bool has_sign = s.fmt.kind != kUnsigned;
  const double sign = (has_sign && (h >> 63)) ? -1.0 : 1.0;
  const bool mine = contributes(s, rank, index);
  const double vmax = static_cast<double>(s.vmax);
  switch (s.op) {
    case kSum:
      return mine ? sign * static_cast<double>(1 + h % s.vmax) : 0.0;
    case kProd:
      return mine ? sign * static_cast<double>(1 + (h & 1)) : 1.0;
    case kAvg:
      if (!mine) return 0.0;
      if (s.fmt.kind == kFloat) return sign * static_cast<double>(1u << (h % 4));
      return static_cast<double>(s.avg_multiple) * static_cast<double>(1 + h % s.vmax);
    case kMax:
    case kMin: {
      if (!mine) {
        if (s.op == kMin) return vmax + 1;
        return has_sign ? -(vmax + 1) : 0.0;
      }
      if (!has_sign) return static_cast<double>(h % (s.vmax + 1));
      return static_cast<double>(h % (2 * s.vmax + 1)) - vmax;
    }
    default:
      return 0.0;
  }
}

CS_HD std::uint64_t input_bits(const Spec& s, std::int32_t rank, std::uint64_t index) {
  if (s.op == kNone) return hash(s.seed, rank, index) & width_mask(s.fmt);
  return to_bits(input_value(s, rank, index), s.fmt);
}

// The reduction over all ranks of element `index`, visiting only the contributing ranks.
CS_HD std::uint64_t reduced_bits(const Spec& s, std::uint64_t index) {
  const std::int32_t period = s.period <= 1 ? 1 : s.period;
  const std::int32_t first =
      static_cast<std::int32_t>((period - static_cast<std::int32_t>(index % period)) % period);
  double acc = s.op == kProd ? 1.0 : 0.0;
  bool empty = true;
  for (std::int32_t r = first; r < s.nranks; r += period) {
    const double v = input_value(s, r, index);
    if (s.op == kSum || s.op == kAvg) {
      acc += v;
    } else if (s.op == kProd) {
      acc *= v;
    } else if (empty || (s.op == kMax ? v > acc : v < acc)) {
      acc = v;
    }
    empty = false;
  }
  if (s.op == kAvg) {
    acc = s.fmt.kind == kFloat ? acc * s.avg_scale
                               : ::trunc(acc / static_cast<double>(s.nranks));
  }
  return to_bits(acc, s.fmt);
}

CS_HD std::uint64_t expected_bits(const Expect& e, std::uint64_t i) {
  if (e.reduced) return reduced_bits(e.spec, e.index_base + i);
  if (e.chunk != 0) {
    return input_bits(e.spec, static_cast<std::int32_t>(i / e.chunk), e.index_base + i % e.chunk);
  }
  return input_bits(e.spec, e.src_rank, e.index_base + i);
}

}  // namespace commsweep::pattern
