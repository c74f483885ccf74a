// What every command that measures does first: choose and set up the backend, learn every
// rank's device, and (rank 0) assemble the provenance and the header lines of the tables.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/fabric_run_options.hpp"
#include "run/hang_account.hpp"
#include "run/results_keeper.hpp"
#include "topology/run/run_topology.hpp"
#include "comm/make_backend.hpp"
#include "judge/outcomes.hpp"
#include "nccl_policy/policy.hpp"
#include "regress/expected.hpp"
#include "report/result.hpp"
#include "runtime/watchdog.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// What the top level knows of this rank when it reports an error.
struct RankContext {
  int device = -1;
};

struct RunSetup {
  BackendSetup backend;
  report::Provenance provenance;          // complete on rank 0
  std::string version_line;               // "commsweep version ... backend ... nccl-..."
  std::vector<std::string> device_lines;  // nccl-tests' "Rank  0 Group  0 Pid ..." lines
  std::string topology_note;              // which NCCL_TOPO_FILE, and why; empty: no shape known
  // nccl backend: the NCCL version policy's decision for each path decided so far (the
  // collectives' at set-up, the EP implementations' before the EP sweep), in the preamble and
  // (rank 0) the provenance.
  std::vector<nccl_policy::Decision> nccl_policy;
  // Rank 0: the binding (--bind auto) and NCCL's transport report, '#' lines for the preamble.
  std::vector<std::string> fabric_lines;
  std::optional<report::TransportReport> transport;  // rank 0, nccl backend: for the results
  bool transport_failed = false;  // every rank: --require-transport / --require-gdr not met
  // The watchdog polls the backend's asynchronous errors; declared after the backend so that
  // the polling stops before the backend goes.
  Watchdog::HealthCheck health_check;
  // Rank 0 with --json (make_keeper): every row the sweeps print, for a run ended early; the
  // run's results go to --json through it (write_final).
  std::shared_ptr<ResultsKeeper> keeper;
  // Rank 0: the expected figures that apply to this run's hardware (regress/expected.hpp), by
  // which each collective row is annotated and judged; empty entries where none applies.
  std::shared_ptr<const regress::Expectations> expected;
  // What a hang verdict adds: NCCL RAS's account (run/hang_account.hpp), kept in the keeper's
  // file too once there is one.
  std::shared_ptr<HangAccount> hang_account;
};

// With a known shape, the topology file is checked and NCCL_TOPO_FILE set before NCCL starts
// (see run/run_topology.hpp). Before the backend is made, each rank is bound (--bind auto) and
// NCCL's INFO lines start to be captured; after it, the transport is reported and judged
// (run/run_transport.hpp): when run.transport_failed the command stops before measuring.
RunSetup start_run(World& world, Watchdog& watchdog, BackendChoice choice, double timeout_s,
                   const std::vector<std::string>& arguments, char** envp, RankContext& context,
                   const TopologyRequest& topology = {}, const FabricRunOptions& fabric = {},
                   const BackendOptions& backend_options = {});

// Records the policy's decision for a path (once per path), rank 0 also in the provenance.
void record_nccl_decision(RunSetup& run, const nccl_policy::Decision& decision);
// "# NCCL policy (headers 2.28.9, library 2.28.9): lsa_ep: accepted: library 2.28.9 is ..."
std::string nccl_policy_line(const RunSetup& run, const nccl_policy::Decision& decision);

// Rank 0: the world line, the backend note, the NCCL policy's decisions, the topology note and
// the fabric lines, each a '#' line, as every command that measures prints them before its
// first table.
void print_preamble(const World& world, const RunSetup& run);

// Empty when every rank was started with the same arguments; otherwise (on every rank) a
// message naming the ranks whose arguments differ from rank 0's. Runs before anything else, so
// that ranks cannot take different paths and hang: a hash of the arguments is compared.
std::string argument_mismatch(World& world, const std::vector<std::string>& arguments);

// --json given a path rank 0 cannot write (no such folder, a directory, no permission): a usage
// Error on every rank, before anything is measured. Nothing when path is empty.
void require_writable_results(World& world, const std::string& path, double timeout_s);

// The run's outcomes, for the one judge's exit code (judge/outcomes.hpp): wrong elements, an
// incomplete run, a health FAIL (results.health_fail), a row below its expected figure's FAIL
// floor (slow).
judge::Outcomes outcomes_of(const report::Results& results);
// "interrupted by SIGTERM: the rows above were measured; the rest were not (incomplete)"
std::string interrupted_note();

// "World: 4 ranks on 1 host: vm (4 ranks)"
std::string world_summary(const World& world);
// A job of RANKS ranks: for one, the line saying that it measures no fabric (its busbw is 0) and
// what to run instead; "" for more.
std::string single_rank_note(int ranks);

}  // namespace commsweep
