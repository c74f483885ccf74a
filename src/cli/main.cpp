// commsweep's entry point: MPI up, options, the command, and one place where every error
// becomes a message naming the rank, host and device, and an exit code.
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/guarded.hpp"
#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "output/stdout_check.hpp"
#include "run/measure.hpp"
#include "run/results_keeper.hpp"
#include "run/run_setup.hpp"
#include "run/workload.hpp"
#include "runtime/termination.hpp"
#include "runtime/world.hpp"
#include "version.hpp"

namespace {

// Under mpirun a Ctrl-C can reach a rank while its libraries (MPI, CUDA, NCCL) still load, and
// the signal's default action would end it without a word: blocked from load time, the signal
// waits for the TerminationGuard in main, which says what happened.
__attribute__((constructor)) void block_termination_signals_at_load() { commsweep::block_termination_signals(); }

// `commsweep [TEST...]`, `commsweep ep`, `commsweep pairs`, any registered workload: its flags
// read (a usage error ends the job at once), its help, or its measurement run alone.
int run_measuring(commsweep::World& world, const commsweep::Workload& workload, int argc, char** argv, char** envp) {
  using namespace commsweep;
  MeasureOptions o;
  try {
    o = parse_measure_options(workload, argc, argv);
  } catch (const Error& e) {
    return refuse_usage(world, e);
  }
  if (world.rank() == 0) {
    if (o.help) std::cout << measure_help_text(workload);
    if (o.version) std::cout << "commsweep " << kVersion << " (" << kGitHash << ")\n";
    if (o.list) std::cout << list_text();
  }
  if (o.help || o.version || o.list) return exit_code::kOk;
  RankContext context;
  return guarded(world, context,
                 [&] { return run_alone(world, workload, *o.measurement, o.run, o.arguments, envp, context); });
}

// A command's offline form (`commsweep pairs --plan`, `commsweep health --judge FILE`): it reads
// files only, without MPI (and without mpirun); an error is its message and exit code.
int run_offline(const std::function<int()>& command) {
  using namespace commsweep;
  try {
    return command();
  } catch (const Error& e) {
    std::fprintf(stderr, "commsweep: %s\n", e.what());
    return e.exit_code();
  }
}

// `commsweep pairs --plan`: the workload's flags read, its help, or its offline run.
int run_workload_offline(const commsweep::Workload& workload, int argc, char** argv) {
  using namespace commsweep;
  const MeasureOptions o = parse_measure_options(workload, argc, argv);
  if (!o.help) return o.measurement->run_offline();
  std::cout << measure_help_text(workload);
  return exit_code::kOk;
}

int run_command(int argc, char** argv, char** envp);

// `commsweep help [CMD]`: what `commsweep [CMD] --help` prints.
int run_help(int argc, char** argv, char** envp) {
  using namespace commsweep;
  std::vector<std::string> words;
  try {
    words = help_arguments(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "commsweep help: %s\n", e.what());
    return e.exit_code();
  }
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  return run_command(static_cast<int>(words.size()), args.data(), envp);
}

int run_command(int argc, char** argv, char** envp) {
  using namespace commsweep;
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "help") return run_help(argc, argv, envp);
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
  const Workload* workload = find_command_workload(command);
  if (workload && !workload->offline_flag.empty() && asks_for_flag(std::string(workload->offline_flag), argc, argv)) {
    return run_offline([&] { return run_workload_offline(*workload, argc, argv); });
  }
  for (const auto& c : world_commands()) {
    if (command == c.name && c.offline_flag && asks_for_flag(c.offline_flag, argc, argv)) {
      return run_offline([&] { return c.run_offline(argc, argv); });
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
  for (const auto& c : world_commands()) {
    if (command != c.name) continue;
    RankContext context;
    return guarded(world, context, [&] { return c.run(world, argc, argv, envp); });
  }
  return run_measuring(world, workload ? *workload : default_workload(), argc, argv, envp);
}

}  // namespace

int main(int argc, char** argv, char** envp) {
  using namespace commsweep;
  const int rc = run_command(argc, argv, envp);
  // A table, list or help that never reached the user is a failure: an output not written.
  return output::finish_standard_output(rc, exit_code::kOutputFailed);
}
