// The MoE expert-parallel exchange (dispatch and combine) as a sweep: its axes and settings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep::ep {

enum class RoutingKind { Randn, Uniform, Balanced, Skewed, File };
enum class EpDtype { Bf16, Fp8 };

std::string_view name_of(RoutingKind kind);  // "randn" "uniform" "balanced" "skewed" "file"
std::string_view name_of(EpDtype dtype);     // "bf16" "fp8"
// Every value of each, in the enum's order: the names the settings (ep/settings.hpp), --help
// and the schema list.
const std::vector<RoutingKind>& all_routing_kinds();
const std::vector<EpDtype>& all_ep_dtypes();

// One point of the sweep.
struct EpCase {
  int tokens = 4096;   // per rank
  int hidden = 7168;
  int topk = 8;
  int experts = 256;   // in all; experts / world size on each rank
  EpDtype dtype = EpDtype::Bf16;
  RoutingKind routing = RoutingKind::Randn;
};

struct EpConfig {
  std::vector<int> tokens{128, 256, 512, 1024, 2048, 4096};
  std::vector<int> hidden{7168};
  std::vector<int> topk{8};
  std::vector<int> experts{256};
  std::vector<EpDtype> dtypes{EpDtype::Bf16};
  std::vector<RoutingKind> routings{RoutingKind::Randn};
  // How the exchange is done (ep/implementation.hpp: the registered names): each case runs on
  // each, one row each.
  std::vector<std::string> impls{"alltoallv"};
  double skew = 1.0;             // skewed: expert e drawn with weight 1 / (e + 1)^skew
  std::string routing_file;      // file: the routing table (routing.hpp documents the format)
  int topk_groups = 0;           // > 0: a token's experts lie on at most this many nodes
  int iters = 20;
  int warmup = 5;
  bool check = true;
  bool show_expected = false;    // --show-expected: each phase's expected time and share after the table's columns
  double timeout_s = 300;
  std::uint64_t seed = 0x636f6d6d73776570ull;
  // The settings an implementation declares for itself (EpImplementation::settings), by suite
  // key, as read (lsa's lsa_blocks): no implementation's setting is a field here.
  std::map<std::string, settings::Value> impl_settings;
  int fault_wrong_rank = -1;     // testing: this rank flips one dispatched and one combined element
};

// Empty when the case can run on nranks ranks; otherwise why not, naming the setting
// (experts % nranks != 0, topk > experts, hidden % 128 != 0 for fp8, tokens < 0, ...).
std::string invalid(const EpCase& c, int nranks);

// The cases of the sweep in order: routing, dtype, experts, topk, hidden, tokens (innermost).
std::vector<EpCase> expand(const EpConfig& config);

}  // namespace commsweep::ep
