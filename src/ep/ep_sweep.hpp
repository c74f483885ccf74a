// The EP sweep: per case, every rank's routing, warm-up, timed dispatch / combine iterations
// (median per rank), a check run against the host reference, and one EpRow on rank 0.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ep/ep_config.hpp"
#include "ep/exchange.hpp"
#include "report/result.hpp"
#include "runtime/world.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/window_observer.hpp"
#include "sweep/run_control.hpp"
#include "core/median.hpp"

namespace commsweep::ep {

// Median of per-iteration times (the statistic the field's EP figures use): core/median.hpp.
using commsweep::median;

// Combines per-rank medians and bytes into one phase of a row; `wrong` empty: not checked.
report::EpPhase combine_phase(const std::vector<double>& rank_time_us,
                              const std::vector<std::uint64_t>& rank_bytes,
                              const std::vector<std::uint64_t>& rank_fabric_bytes,
                              std::optional<std::uint64_t> wrong);

// An implementation of the exchange, by name, as the sweep runs it.
struct NamedExchange {
  std::string impl;  // its --ep-impl name
  EpExchange* exchange;
};

// Refuses (usage error) any case of the sweep that cannot run on nranks ranks, naming why.
void validate_cases(const EpConfig& config, int nranks);

class EpSweep {
 public:
  // One exchange per implementation of config.impls, in that order. CONTROL watches its
  // phases and stops it where the ranks agree to (sweep/run_control.hpp).
  // FAULTS, where given, see each case's outputs before they are verified (sweep/fault_points.hpp:
  // the tests' planted faults); they must outlive the sweep. GPU_STATE, where given, is asked for
  // this rank's GPU around each case's timed iterations (sweep/window_observer.hpp); every rank
  // passes one or none.
  EpSweep(World& world, std::vector<NamedExchange> exchanges, RunControl& control,
          const EpConfig& config, int ranks_per_node, FaultPoints* faults = nullptr,
          WindowObserver* gpu_state = nullptr);
  // Every case, on every exchange; the caller has refused bad cases (validate_cases) first.
  // Stopped on SIGTERM / SIGINT before a case (the control is then interrupted()), it returns
  // the rows so far.
  std::vector<report::EpRow> run(const std::function<void(const report::EpRow&)>& on_row);

 private:
  std::vector<Routing> routings(const EpCase& c) const;
  report::EpRow run_case(const EpCase& c, const std::vector<Routing>& all, const NamedExchange& x);

  World& world_;
  std::vector<NamedExchange> exchanges_;
  RunControl& control_;
  EpConfig config_;
  int ranks_per_node_;
  FaultPoints* faults_;
  WindowObserver* gpu_state_;
};

}  // namespace commsweep::ep
