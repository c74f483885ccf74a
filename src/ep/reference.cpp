#include "ep/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "ep/layout.hpp"
#include "pattern/ep_pattern.hpp"

// Bit-exactness with the kernels: every float operation below is one IEEE operation in the
// order src/pattern/ep_pattern.hpp gives, with the one fused multiply-add written as std::fmaf.
// No product here feeds an addition, so GCC's default -ffp-contract=fast has nothing to fuse
// even where the target has FMA (checked with -march=x86-64-v3: same code with
// -ffp-contract=off).

namespace commsweep::ep {

ExpectedDispatch expected_dispatch(const std::vector<Routing>& all, int rank, int experts,
                                   int nranks) {
  if (static_cast<int>(all.size()) != nranks || experts % nranks != 0 || rank < 0 ||
      rank >= nranks) {
    throw std::invalid_argument("expected_dispatch: " + std::to_string(all.size()) +
                                " routings, rank " + std::to_string(rank) + " of " +
                                std::to_string(nranks) + ", " + std::to_string(experts) +
                                " experts");
  }
  const int local = experts_per_rank(experts, nranks);
  const int first = rank * local;
  ExpectedDispatch out;
  out.per_expert_counts.assign(local, 0);
  out.entries.assign(local, {});
  out.recv_counts.assign(nranks, 0);
  for (int src = 0; src < nranks; ++src) {
    const Routing& r = all[src];
    for (int t = 0; t < r.tokens; ++t) {
      bool received = false;
      for (int j = 0; j < r.topk; ++j) {
        const int e = r.experts[static_cast<std::size_t>(t) * r.topk + j];
        if (e < first || e >= first + local) continue;
        out.entries[e - first].emplace_back(src, t);
        received = true;
      }
      if (received) ++out.recv_counts[src];
    }
  }
  for (int l = 0; l < local; ++l) {
    out.per_expert_counts[l] = static_cast<int>(out.entries[l].size());
  }
  return out;
}

TokenInput token_input(const EpCase& c, std::uint64_t seed, int rank, int token) {
  if (c.hidden <= 0 || (c.dtype == EpDtype::Fp8 && c.hidden % kFp8BlockElements != 0)) {
    throw std::invalid_argument("token_input: --hidden " + std::to_string(c.hidden) +
                                " does not suit " + std::string(name_of(c.dtype)));
  }
  const auto hidden = static_cast<std::uint32_t>(c.hidden);
  TokenInput in;
  in.value.resize(hidden);
  if (c.dtype == EpDtype::Bf16) {
    in.bf16.resize(hidden);
    for (std::uint32_t h = 0; h < hidden; ++h) {
      in.bf16[h] = token_value_bits(seed, rank, static_cast<std::uint32_t>(token), h, hidden);
      in.value[h] = bf16_to_float(in.bf16[h]);
    }
    return in;
  }
  in.fp8.resize(hidden);
  in.scales.resize(hidden / kFp8BlockElements);
  for (std::uint32_t b = 0; b < in.scales.size(); ++b) {
    const std::uint32_t begin = b * kFp8BlockElements;
    float x[kFp8BlockElements];
    float amax = 0.0f;
    for (int i = 0; i < kFp8BlockElements; ++i) {
      x[i] = bf16_to_float(
          token_value_bits(seed, rank, static_cast<std::uint32_t>(token), begin + i, hidden));
      amax = std::fmax(amax, std::fabs(x[i]));
    }
    const float scale = fp8_block_scale(amax);
    in.scales[b] = scale;
    for (int i = 0; i < kFp8BlockElements; ++i) {
      in.fp8[begin + i] = quantize_e4m3(x[i], scale);
      in.value[begin + i] = dequantize_e4m3(in.fp8[begin + i], scale);
    }
  }
  return in;
}

std::vector<std::uint16_t> expected_combine(const EpCase& c, const Routing& mine,
                                            std::uint64_t seed, int rank, int nranks) {
  if (const std::string why = invalid(c, nranks); !why.empty()) throw std::invalid_argument(why);
  const int k = mine.topk;
  const auto hidden = static_cast<std::size_t>(c.hidden);
  std::vector<std::uint16_t> out(static_cast<std::size_t>(mine.tokens) * hidden);
  std::vector<int> dest(k);  // the rank of each slot's expert
  std::vector<int> ranks;    // the distinct destinations, ascending
  for (int t = 0; t < mine.tokens; ++t) {
    const std::int32_t* experts = mine.experts.data() + static_cast<std::size_t>(t) * k;
    const float* weights = mine.weights.data() + static_cast<std::size_t>(t) * k;
    ranks.clear();
    for (int j = 0; j < k; ++j) {
      dest[j] = rank_of_expert(experts[j], c.experts, nranks);
      bool listed = false;
      for (int d : ranks) listed = listed || d == dest[j];
      if (!listed) ranks.push_back(dest[j]);
    }
    std::sort(ranks.begin(), ranks.end());
    const TokenInput in = token_input(c, seed, rank, t);
    std::uint16_t* row = out.data() + static_cast<std::size_t>(t) * hidden;
    for (std::size_t h = 0; h < hidden; ++h) {
      float acc = 0.0f;
      for (int d : ranks) {
        float partial = 0.0f;  // at rank d: its slots in slot order
        for (int j = 0; j < k; ++j) {
          if (dest[j] != d) continue;
          const float y = bf16_to_float(expert_output_bits(in.value[h], experts[j]));
          partial = std::fmaf(weights[j], y, partial);
        }
        acc += bf16_to_float(float_to_bf16(partial));  // sent back as bf16
      }
      row[h] = float_to_bf16(acc);
    }
  }
  return out;
}

}  // namespace commsweep::ep
