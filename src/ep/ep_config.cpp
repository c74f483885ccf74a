#include "ep/ep_config.hpp"

#include <string>

#include "pattern/ep_pattern.hpp"  // kFp8BlockElements

namespace commsweep::ep {

std::string_view name_of(RoutingKind kind) {
  switch (kind) {
    case RoutingKind::Randn: return "randn";
    case RoutingKind::Uniform: return "uniform";
    case RoutingKind::Balanced: return "balanced";
    case RoutingKind::Skewed: return "skewed";
    case RoutingKind::File: return "file";
  }
  return "?";
}

std::string_view name_of(EpDtype dtype) {
  switch (dtype) {
    case EpDtype::Bf16: return "bf16";
    case EpDtype::Fp8: return "fp8";
  }
  return "?";
}

const std::vector<RoutingKind>& all_routing_kinds() {
  static const std::vector<RoutingKind> all{RoutingKind::Randn, RoutingKind::Uniform, RoutingKind::Balanced,
                                            RoutingKind::Skewed, RoutingKind::File};
  return all;
}

const std::vector<EpDtype>& all_ep_dtypes() {
  static const std::vector<EpDtype> all{EpDtype::Bf16, EpDtype::Fp8};
  return all;
}

namespace {

std::string setting(const char* flag, int value) {
  return std::string(flag) + " " + std::to_string(value);
}

}  // namespace

// The first problem found, in the order a user would fix them: sizes of a token, then the
// experts and their spread over the ranks.
std::string invalid(const EpCase& c, int nranks) {
  if (nranks < 1) return std::to_string(nranks) + " ranks: the exchange needs at least one";
  if (c.tokens < 0) return setting("--tokens", c.tokens) + " is negative";
  if (c.hidden <= 0) return setting("--hidden", c.hidden) + " is not positive";
  // 8 bf16 elements = 16 bytes: the kernels move a token in 16-byte vectors.
  if (c.hidden % 8 != 0) return setting("--hidden", c.hidden) + " is not a multiple of 8";
  if (c.dtype == EpDtype::Fp8 && c.hidden % kFp8BlockElements != 0) {
    return setting("--hidden", c.hidden) + " is not a multiple of " +
           std::to_string(kFp8BlockElements) + ", which fp8 needs (one scale per " +
           std::to_string(kFp8BlockElements) + " elements)";
  }
  if (c.experts < 1) return setting("--experts", c.experts) + " is not positive";
  if (c.topk < 1) return setting("--topk", c.topk) + " is less than 1";
  if (c.topk > c.experts) {
    return setting("--topk", c.topk) + " is more than the " + std::to_string(c.experts) +
           " experts (a token's experts are distinct)";
  }
  if (c.experts % nranks != 0) {
    return setting("--experts", c.experts) + " is not divisible by the " +
           std::to_string(nranks) + " ranks";
  }
  return {};
}

std::vector<EpCase> expand(const EpConfig& config) {
  std::vector<EpCase> cases;
  for (RoutingKind routing : config.routings) {
    for (EpDtype dtype : config.dtypes) {
      for (int experts : config.experts) {
        for (int topk : config.topk) {
          for (int hidden : config.hidden) {
            for (int tokens : config.tokens) {
              EpCase c;
              c.tokens = tokens;
              c.hidden = hidden;
              c.topk = topk;
              c.experts = experts;
              c.dtype = dtype;
              c.routing = routing;
              cases.push_back(c);
            }
          }
        }
      }
    }
  }
  return cases;
}

}  // namespace commsweep::ep
