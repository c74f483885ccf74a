// A reduction done the way a GPU or an MPI library does it: in the element type's own
// arithmetic, one operation at a time, rounding to the format after every step, in whatever
// order the algorithm picks. The pattern's claim is that every such order gives the bits that
// pattern::reduced_bits computes; these helpers let the tests check that claim independently.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "pattern/pattern.hpp"

namespace commsweep::testing {

// The value of x after a store to the element type: integers wrap, floats round to nearest.
inline double round_to(double x, const pattern::Format& f) {
  return pattern::from_bits(pattern::to_bits(x, f), f);
}

// One step of op (Avg sums; the division comes after).
inline double reduce_step(RedOp op, double a, double b, const pattern::Format& f) {
  switch (op) {
    case RedOp::Sum: case RedOp::Avg: return round_to(a + b, f);
    case RedOp::Prod: return round_to(a * b, f);
    case RedOp::Max: return a > b ? a : b;
    case RedOp::Min: return a < b ? a : b;
    case RedOp::None: break;
  }
  return a;
}

// Folds `values` (already in the element type) left to right.
inline double fold(RedOp op, const std::vector<double>& values, const pattern::Format& f) {
  double acc = values.at(0);
  for (std::size_t i = 1; i < values.size(); ++i) acc = reduce_step(op, acc, values[i], f);
  return acc;
}

// Pairwise: (v0 op v1) op (v2 op v3) ..., the shape of a tree algorithm.
inline double fold_tree(RedOp op, std::vector<double> values, const pattern::Format& f) {
  while (values.size() > 1) {
    std::vector<double> next;
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) {
      next.push_back(reduce_step(op, values[i], values[i + 1], f));
    }
    if (values.size() % 2 == 1) next.push_back(values.back());
    values = std::move(next);
  }
  return values.at(0);
}

// The finishing step of avg, as NCCL does it: integers sum then divide (truncating);
// floats multiply by 1/n rounded to the type. `sum` is the folded sum.
inline double finish_avg(double sum, int nranks, const pattern::Format& f) {
  if (f.kind != pattern::kFloat) {
    return static_cast<double>(static_cast<std::int64_t>(sum) / nranks);
  }
  return round_to(sum * round_to(1.0 / nranks, f), f);
}

// Float avg the other way NCCL may do it: each input scaled by 1/n first, then summed.
inline std::vector<double> premultiplied(const std::vector<double>& values, int nranks,
                                         const pattern::Format& f) {
  const double scale = round_to(1.0 / nranks, f);
  std::vector<double> out;
  for (double v : values) out.push_back(round_to(v * scale, f));
  return out;
}

// The bits of the full reduction of `values` (one per rank, in the order given), folded left
// to right: what one rank-ordered algorithm produces.
inline std::uint64_t reduce_in_order(RedOp op, const std::vector<double>& values, int nranks,
                                     const pattern::Format& f) {
  double acc = fold(op, values, f);
  if (op == RedOp::Avg) acc = finish_avg(acc, nranks, f);
  return pattern::to_bits(acc, f);
}

}  // namespace commsweep::testing
