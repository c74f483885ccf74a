// The bit encodings of src/pattern/pattern.hpp: the expected output is computed from these bits,
// so one wrong rounding rule would make every check of a 16- or 8-bit type fail (or, worse,
// pass on wrong data).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "core/types.hpp"
#include "pattern/pattern.hpp"
#include "pattern/spec.hpp"

namespace commsweep {
namespace {

using pattern::from_bits;
using pattern::to_bits;

const pattern::Format kHalf = format_of(DataType::Float16);
const pattern::Format kBf16 = format_of(DataType::Bfloat16);
const pattern::Format kE4m3 = format_of(DataType::Float8E4M3);
const pattern::Format kE5m2 = format_of(DataType::Float8E5M2);

TEST(Formats, LayoutOfEveryType) {
  EXPECT_EQ(kHalf.exp_bits, 5);
  EXPECT_EQ(kHalf.man_bits, 10);
  EXPECT_EQ(kBf16.exp_bits, 8);
  EXPECT_EQ(kBf16.man_bits, 7);
  EXPECT_EQ(kE4m3.exp_bits, 4);
  EXPECT_EQ(kE4m3.man_bits, 3);
  EXPECT_EQ(kE5m2.exp_bits, 5);
  EXPECT_EQ(kE5m2.man_bits, 2);
  for (DataType t : all_data_types()) {
    const pattern::Format f = format_of(t);
    EXPECT_EQ(f.bytes, element_size(t)) << name_of(t);
    EXPECT_EQ(f.kind == pattern::kFloat, is_floating(t)) << name_of(t);
    EXPECT_EQ(f.kind == pattern::kSigned, is_signed_integer(t)) << name_of(t);
    if (is_floating(t)) {
      EXPECT_EQ(1 + f.exp_bits + f.man_bits, 8 * f.bytes) << name_of(t);
    }
  }
}

TEST(Encoding, KnownValues) {
  EXPECT_EQ(to_bits(1.0, kBf16), 0x3F80u);
  EXPECT_EQ(to_bits(-2.0, kBf16), 0xC000u);
  EXPECT_EQ(to_bits(1.0, kHalf), 0x3C00u);
  EXPECT_EQ(to_bits(-2.0, kHalf), 0xC000u);
  EXPECT_EQ(to_bits(0.5, kHalf), 0x3800u);
  EXPECT_EQ(to_bits(2048.0, kHalf), 0x6800u);
  EXPECT_EQ(to_bits(65504.0, kHalf), 0x7BFFu);  // largest finite half
  EXPECT_EQ(to_bits(1.0, kE4m3), 0x38u);
  EXPECT_EQ(to_bits(-1.0, kE4m3), 0xB8u);
  EXPECT_EQ(to_bits(448.0, kE4m3), 0x7Eu);  // largest finite e4m3 (OCP FN)
  EXPECT_EQ(to_bits(1.0, kE5m2), 0x3Cu);
  EXPECT_EQ(to_bits(57344.0, kE5m2), 0x7Bu);  // largest finite e5m2
  EXPECT_EQ(to_bits(0.0, kHalf), 0u);
  EXPECT_EQ(to_bits(1.0, format_of(DataType::Float32)), 0x3F800000u);
  EXPECT_EQ(to_bits(1.0, format_of(DataType::Float64)), 0x3FF0000000000000u);
  EXPECT_EQ(to_bits(-1.0, format_of(DataType::Int8)), 0xFFu);
  EXPECT_EQ(to_bits(-1.0, format_of(DataType::Int64)), 0xFFFFFFFFFFFFFFFFu);
  EXPECT_EQ(to_bits(256.0, format_of(DataType::Uint8)), 0u);  // wraps as the hardware does
}

TEST(Encoding, Subnormals) {
  EXPECT_EQ(to_bits(std::ldexp(1.0, -24), kHalf), 0x0001u);  // smallest half
  EXPECT_EQ(to_bits(std::ldexp(1.0, -14), kHalf), 0x0400u);  // smallest normal half
  EXPECT_EQ(to_bits(std::ldexp(1023.0, -24), kHalf), 0x03FFu);
  // Halfway between the largest subnormal and the smallest normal: ties to even (the normal).
  EXPECT_EQ(to_bits(std::ldexp(1023.5, -24), kHalf), 0x0400u);
  EXPECT_EQ(to_bits(std::ldexp(1.0, -25), kHalf), 0x0000u);  // ties to even: zero
  EXPECT_EQ(to_bits(std::ldexp(3.0, -25), kHalf), 0x0002u);  // 1.5 ulp: ties to even (2)
  EXPECT_EQ(to_bits(std::ldexp(1.0, -9), kE4m3), 0x01u);     // smallest e4m3
  EXPECT_EQ(to_bits(std::ldexp(1.0, -6), kE4m3), 0x08u);     // smallest normal e4m3
  EXPECT_EQ(to_bits(std::ldexp(1.0, -16), kE5m2), 0x01u);    // smallest e5m2
  EXPECT_EQ(to_bits(std::ldexp(1.0, -133), kBf16), 0x0001u); // smallest bf16
  EXPECT_EQ(from_bits(0x0001, kHalf), std::ldexp(1.0, -24));
  EXPECT_EQ(from_bits(0x8001, kHalf), -std::ldexp(1.0, -24));
  EXPECT_EQ(from_bits(0x07, kE4m3), std::ldexp(7.0, -9));
}

TEST(Encoding, MantissaCarryIntoTheExponent) {
  // 1.1111111111 1 (half): rounds up to 2.0.
  EXPECT_EQ(to_bits(2.0 - std::ldexp(1.0, -11), kHalf), 0x4000u);
  EXPECT_EQ(to_bits(2.0 - std::ldexp(3.0, -12), kHalf), 0x3FFFu);
  EXPECT_EQ(to_bits(15.5, kE4m3), to_bits(16.0, kE4m3));  // 15.5 is halfway to 16: even wins
}

// Decoding then encoding every finite bit pattern gives it back (negative zero aside: the
// pattern never produces it).
void expect_every_pattern_round_trips(const pattern::Format& f, bool (*finite)(std::uint64_t)) {
  const std::uint64_t n = std::uint64_t{1} << (8 * f.bytes);
  const std::uint64_t negative_zero = std::uint64_t{1} << (8 * f.bytes - 1);
  for (std::uint64_t bits = 0; bits < n; ++bits) {
    if (!finite(bits) || bits == negative_zero) continue;
    ASSERT_EQ(to_bits(from_bits(bits, f), f), bits) << std::hex << "0x" << bits;
  }
}

TEST(Encoding, EveryFiniteHalfRoundTrips) {
  expect_every_pattern_round_trips(kHalf,
                                   [](std::uint64_t b) { return ((b >> 10) & 0x1F) != 0x1F; });
}
TEST(Encoding, EveryFiniteBfloat16RoundTrips) {
  expect_every_pattern_round_trips(kBf16,
                                   [](std::uint64_t b) { return ((b >> 7) & 0xFF) != 0xFF; });
}
TEST(Encoding, EveryFiniteE4m3RoundTrips) {
  // e4m3 (OCP FN) has no infinities: only S.1111.111 is NaN.
  expect_every_pattern_round_trips(kE4m3, [](std::uint64_t b) { return (b & 0x7F) != 0x7F; });
}
TEST(Encoding, EveryFiniteE5m2RoundTrips) {
  expect_every_pattern_round_trips(kE5m2,
                                   [](std::uint64_t b) { return ((b >> 2) & 0x1F) != 0x1F; });
}

// Round to nearest, ties to even, checked between every pair of neighbours of a format:
// a quarter of the way rounds down, three quarters up, the midpoint to the even mantissa.
void expect_round_to_nearest_even(const pattern::Format& f, std::uint64_t largest_finite) {
  for (std::uint64_t lo = 0; lo < largest_finite; ++lo) {
    const double a = from_bits(lo, f);
    const double b = from_bits(lo + 1, f);
    ASSERT_LT(a, b) << std::hex << lo;
    ASSERT_EQ(to_bits(a + (b - a) / 4, f), lo) << std::hex << lo;
    ASSERT_EQ(to_bits(a + 3 * (b - a) / 4, f), lo + 1) << std::hex << lo;
    ASSERT_EQ(to_bits((a + b) / 2, f), lo % 2 == 0 ? lo : lo + 1) << std::hex << lo;
    ASSERT_EQ(to_bits(-(a + b) / 2, f) & ~(std::uint64_t{1} << (8 * f.bytes - 1)),
              lo % 2 == 0 ? lo : lo + 1)
        << "negative " << std::hex << lo;
  }
}

TEST(Rounding, HalfTiesToEven) { expect_round_to_nearest_even(kHalf, 0x7BFF); }
TEST(Rounding, Bfloat16TiesToEven) { expect_round_to_nearest_even(kBf16, 0x7F7F); }
TEST(Rounding, E4m3TiesToEven) { expect_round_to_nearest_even(kE4m3, 0x7E); }
TEST(Rounding, E5m2TiesToEven) { expect_round_to_nearest_even(kE5m2, 0x7B); }

#ifdef __FLT16_MAX__
// The compiler's own _Float16 conversion is an independent reference for half.
TEST(Rounding, HalfAgreesWithTheCompilersFloat16) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-26, 15);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(to_bits(x, kHalf), want) << x;
  }
}
#endif

// bfloat16 is the top half of a float32, rounded to nearest even.
TEST(Rounding, Bfloat16AgreesWithTruncatedFloat32) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t f32 = rng();
    if (((f32 >> 23) & 0xFF) >= 0xFE) continue;  // near or at inf/NaN
    if (f32 == 0x80000000u) continue;            // negative zero
    float x;
    std::memcpy(&x, &f32, 4);
    const std::uint32_t lower = f32 & 0xFFFF;
    std::uint32_t want = f32 >> 16;
    if (lower > 0x8000 || (lower == 0x8000 && (want & 1))) ++want;
    ASSERT_EQ(to_bits(x, kBf16), want) << std::hex << f32;
  }
}

// Every integer up to the format's exact limit survives encode/decode; the next one up does
// not, which is why make_spec keeps sums at or below these limits.
void expect_exact_integers_up_to(DataType t, std::int64_t limit) {
  const pattern::Format f = format_of(t);
  for (std::int64_t v = 0; v <= limit; ++v) {
    ASSERT_EQ(from_bits(to_bits(static_cast<double>(v), f), f), static_cast<double>(v))
        << name_of(t) << " " << v;
    if (f.kind != pattern::kUnsigned) {
      ASSERT_EQ(from_bits(to_bits(-static_cast<double>(v), f), f), -static_cast<double>(v))
          << name_of(t) << " " << -v;
    }
  }
}

TEST(ExactIntegers, SmallFloatsUpToTheirLimitAndNoFurther) {
  const std::pair<DataType, std::int64_t> limits[] = {{DataType::Float16, 2048},
                                                      {DataType::Bfloat16, 256},
                                                      {DataType::Float8E4M3, 16},
                                                      {DataType::Float8E5M2, 8}};
  for (const auto& [t, limit] : limits) {
    expect_exact_integers_up_to(t, limit);
    const pattern::Format f = format_of(t);
    EXPECT_NE(from_bits(to_bits(static_cast<double>(limit + 1), f), f),
              static_cast<double>(limit + 1))
        << name_of(t);
  }
}

TEST(ExactIntegers, Float32UpTo2To24) {
  expect_exact_integers_up_to(DataType::Float32, std::int64_t{1} << 24);
  const pattern::Format f = format_of(DataType::Float32);
  EXPECT_NE(from_bits(to_bits(16777217.0, f), f), 16777217.0);
}

TEST(ExactIntegers, IntegerTypesOverTheirRange) {
  expect_exact_integers_up_to(DataType::Int8, 127);
  expect_exact_integers_up_to(DataType::Uint8, 255);
  const pattern::Format int8 = format_of(DataType::Int8);
  EXPECT_EQ(from_bits(to_bits(-128.0, int8), int8), -128.0);
  expect_exact_integers_up_to(DataType::Int32, 1 << 16);
  expect_exact_integers_up_to(DataType::Uint32, 1 << 16);
}

TEST(ExactIntegers, WideTypesSampledUpTo2To40) {
  std::mt19937_64 rng(3);
  for (DataType t : {DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64,
                     DataType::Float64}) {
    const pattern::Format f = format_of(t);
    const std::int64_t limit = t == DataType::Int32 || t == DataType::Uint32
                                   ? std::int64_t{1} << 30
                                   : std::int64_t{1} << 40;
    for (int i = 0; i < 100000; ++i) {
      const double v = static_cast<double>(rng() % static_cast<std::uint64_t>(limit + 1));
      ASSERT_EQ(from_bits(to_bits(v, f), f), v) << name_of(t);
      if (f.kind != pattern::kUnsigned) {
        ASSERT_EQ(from_bits(to_bits(-v, f), f), -v) << name_of(t);
      }
    }
    EXPECT_EQ(from_bits(to_bits(static_cast<double>(limit), f), f), static_cast<double>(limit));
  }
}

}  // namespace
}  // namespace commsweep
