// commsweep's entry point: MPI up, options, the command, and one place where every error
// becomes a message naming the rank, host and device, and an exit code.
#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "run/results_keeper.hpp"
#include "cli/options.hpp"
#include "cli/pairs_options.hpp"
#include "cli/pairs_plan.hpp"
#include "run/run_setup.hpp"
#include "cli/ep_command.hpp"
#include "cli/ep_options.hpp"
#include "cli/sweep_command.hpp"
#include "collectives/collective_test.hpp"
#include "output/stdout_check.hpp"
#include "core/error.hpp"
#include "runtime/termination.hpp"
#include "runtime/world.hpp"
#include "version.hpp"

namespace {

// Under mpirun a Ctrl-C can reach a rank while its libraries (MPI, CUDA, NCCL) still load, and
// the signal's default action would end it without a word: blocked from load time, the signal
// waits for the TerminationGuard in main, which says what happened.
__attribute__((constructor)) void block_termination_signals_at_load() { commsweep::block_termination_signals(); }

// Ends the job for an error this rank alone met (World::fail: rank 0 keeps what was measured).
[[noreturn]] void fail(commsweep::World& world, const commsweep::RankContext& ctx,
                       const commsweep::Error& e) {
  world.fail(commsweep::error_line(world.rank(), world.host(), ctx.device, e), e.what(), e.exit_code());
}

// A usage error every rank reached: the job ends at once, so the others' exit (mpirun answers a
// rank's non-zero exit with SIGTERM to the rest) must not add an "interrupted" line to the one
// message: nothing is kept or said on a signal from here on, then rank 0 says why.
int refuse_usage(commsweep::World& world, const commsweep::Error& e) {
  world.set_last_words(nullptr);
  commsweep::on_termination(nullptr);
  if (world.rank() == 0) std::fprintf(stderr, "commsweep: %s\n", e.what());
  return e.exit_code();
}

// Runs a command, turning every error into its message and exit code.
template <typename Command>
int guarded(commsweep::World& world, commsweep::RankContext& context, Command command) {
  using namespace commsweep;
  try {
    const int rc = command();
    world.set_last_words(nullptr);
    on_termination(nullptr);
    return rc;
  } catch (const Error& e) {
    // Every rank reaches the same verdict (the same arguments; an allocation failure is
    // agreed over MPI by the sweep): end normally, rank 0 says why (and, out of memory,
    // keeps the sizes measured before it).
    if (e.kind() == ErrorKind::Usage) return refuse_usage(world, e);
    if (e.kind() == ErrorKind::OutOfMemory) {
      if (world.rank() == 0) {
        std::fprintf(stderr, "commsweep: out of memory: %s\n", e.what());
        world.say_last_words(std::string(name_of(e.kind())), e.what());
      }
      world.set_last_words(nullptr);
      on_termination(nullptr);
      return e.exit_code();
    }
    fail(world, context, e);
  } catch (const std::bad_alloc& e) {
    // An allocation outside the agreed buffer allocation: this rank alone knows; end the job.
    fail(world, context, Error(ErrorKind::OutOfMemory, e.what()));
  } catch (const std::exception& e) {
    fail(world, context, Error(ErrorKind::Runtime, e.what()));
  }
}

int run_ep(commsweep::World& world, int argc, char** argv, char** envp) {
  using namespace commsweep;
  RankContext context;
  EpCliOptions options;
  try {
    options = parse_ep_options(argc, argv);
  } catch (const Error& e) {
    return refuse_usage(world, e);
  }
  if (options.help) {
    if (world.rank() == 0) std::cout << ep_help_text();
    return exit_code::kOk;
  }
  return guarded(world, context, [&] { return run_ep_command(world, options, envp, context); });
}

int run_command(int argc, char** argv, char** envp) {
  using namespace commsweep;
  const std::string command = argc > 1 ? argv[1] : "";
  for (const auto& c : offline_commands()) {
    if (command != c.name) continue;
    let_termination_signals_in();  // no keeper to stop for: Ctrl-C ends it at once
    try {
      return c.run(argc, argv, envp);
    } catch (const Error& e) {
      std::fprintf(stderr, "commsweep %s: %s\n", c.name, e.what());
      return e.exit_code();
    }
  }
  // `commsweep pairs --plan` runs without MPI (and without mpirun).
  if (command == "pairs" && pairs_plan_requested(argc, argv)) {
    try {
      return run_pairs_plan(argc, argv);
    } catch (const Error& e) {
      std::fprintf(stderr, "commsweep: %s\n", e.what());
      return e.exit_code();
    }
  }
  // First: SIGTERM / SIGINT are blocked before MPI and CUDA start threads (exit code 5).
  const TerminationGuard termination;
  MpiSession mpi(&argc, &argv);
  World world;
  {
    RankContext context;
    const std::vector<std::string> arguments(argv + 1, argv + argc);
    const int rc = guarded(world, context, [&] {
      const std::string mismatch = argument_mismatch(world, arguments);
      if (!mismatch.empty()) throw Error(ErrorKind::Usage, mismatch);
      return exit_code::kOk;
    });
    if (rc != exit_code::kOk) return rc;
  }
  say_interrupted_in_set_up(world);  // until a command's keeper (or its absence) says more
  if (command == "ep") return run_ep(world, argc, argv, envp);
  for (const auto& c : world_commands()) {
    if (command != c.name) continue;
    RankContext context;
    return guarded(world, context, [&] { return c.run(world, argc, argv, envp); });
  }
  RankContext context;
  CliOptions options;
  try {
    options = parse_options(argc, argv);
  } catch (const Error& e) {
    return refuse_usage(world, e);
  }
  if (world.rank() == 0) {
    switch (options.action) {
      case CliOptions::Action::Help: std::cout << help_text(); break;
      case CliOptions::Action::Version: std::cout << "commsweep " << kVersion << " (" << kGitHash << ")\n"; break;
      case CliOptions::Action::List:
        for (const auto* t : collective_tests()) std::cout << t->name << "\n";
        std::cout << "ep              (commsweep ep --help)\n";
        break;
      case CliOptions::Action::Sweep: break;
    }
  }
  if (options.action != CliOptions::Action::Sweep) return exit_code::kOk;
  return guarded(world, context, [&] { return run_sweep_command(world, options, envp, context); });
}

}  // namespace

int main(int argc, char** argv, char** envp) {
  using namespace commsweep;
  const int rc = run_command(argc, argv, envp);
  // A table, list or help that never reached the user is a failure (exit 3; compare's 3 means
  // wrong results, so it says 2, its "nothing usable was written").
  const bool compare = argc > 1 && std::string(argv[1]) == "compare";
  return output::finish_standard_output(rc, compare ? exit_code::kUsage : exit_code::kRuntime);
}
