#include "cli/suite_command.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli/ep_command.hpp"
#include "run/measuring_run.hpp"
#include "run/run_setup.hpp"
#include "cli/suite_options.hpp"
#include "cli/sweep_command.hpp"
#include "core/text_file.hpp"
#include "collectives/collective_test.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/world.hpp"
#include "suite/document.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {
namespace {

// Rank 0's copy of the file, on every rank: ranks that read a path each could read different
// files (a pod image, a stale node-local copy), and the argument check sees only the path.
// An unreadable file is the same usage error everywhere.
std::string shared_suite_text(World& world, const std::string& path, double timeout_s) {
  std::string text, error;
  if (world.rank() == 0) {
    try {
      text = read_bounded_file(path, suite::kMaxDocumentBytes);
    } catch (const std::runtime_error& e) {
      error = std::string("suite: ") + e.what();
    }
  }
  const Phase phase{"suite file from rank 0", Deadline::after(timeout_s)};
  long long sizes[2] = {static_cast<long long>(text.size()), static_cast<long long>(error.size())};
  world.broadcast(sizes, sizeof(sizes), 0, phase);
  text.resize(static_cast<std::size_t>(sizes[0]));
  error.resize(static_cast<std::size_t>(sizes[1]));
  if (sizes[1] > 0) world.broadcast(error.data(), static_cast<int>(sizes[1]), 0, phase);
  if (!error.empty()) throw_usage(error);
  if (sizes[0] > 0) world.broadcast(text.data(), static_cast<int>(sizes[0]), 0, phase);
  return text;
}

// What only the job's size decides, for every sweep before the first runs: a bad root or an
// expert count that does not divide must not end the suite half-way.
void check_against_world(const Suite& suite, const World& world) {
  for (const auto& s : suite.sweeps) {
    try {
      if (s.kind == SuiteSweep::Kind::Ep) {
        check_ep_config(world, s.ep);
        continue;
      }
      for (const auto& name : s.tests) {
        require_root_in_job(*find_collective_test(name), s.collective.root, world.size(), "root");
      }
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Usage) throw;
      throw_usage(s.where + ": " + e.what());
    }
  }
}

std::string banner(const SuiteSweep& s, std::size_t index, std::size_t count) {
  std::ostringstream out;
  out << "# Suite sweep " << index + 1 << " of " << count << ": " << s.name << " (";
  if (s.kind == SuiteSweep::Kind::Ep) {
    out << "ep";
  } else {
    for (std::size_t i = 0; i < s.tests.size(); ++i) out << (i ? "," : "") << s.tests[i];
  }
  out << ")";
  return out.str();
}

}  // namespace

int run_suite_command(World& world, int argc, char** argv, char** envp) {
  const bool root = world.rank() == 0;
  const SuiteCliOptions o = parse_suite_options(argc, argv);
  if (o.help) {
    if (root) std::cout << suite_help_text();
    return exit_code::kOk;
  }
  const double timeout_s = o.timeout_s;
  RankContext context;
  ResultsRun run(world, {o.backend, timeout_s, o.json_path, o.arguments, o.fabric, {}}, envp, context);
  // After --json (a flag's error before the file's), before anything runs.
  const Suite suite = read_suite(o.path, shared_suite_text(world, o.path, timeout_s), o);
  check_against_world(suite, world);

  // Once for the whole suite: the brief preflight, the binding, the transport report, and the
  // NCCL version policy of each EP sweep's implementations (before the preamble, which says it).
  std::vector<ep::EpConfig> ep_configs(suite.sweeps.size());
  std::vector<std::string> policy_notes(suite.sweeps.size());
  const bool started = run.start([&](RunSetup& setup) {
    for (std::size_t i = 0; i < suite.sweeps.size(); ++i) {
      if (suite.sweeps[i].kind != SuiteSweep::Kind::Ep) continue;
      ep_configs[i] = suite.sweeps[i].ep;
      policy_notes[i] = apply_ep_nccl_policy(world, setup, ep_configs[i]);
    }
  });
  if (!started) return run.end_failed_transport();

  report::Results results = run.header();
  for (const auto& note : policy_notes) {
    if (!note.empty() && std::find(results.notes.begin(), results.notes.end(), note) == results.notes.end()) {
      results.notes.push_back(note);
    }
  }
  // One buffers choice per results file: every collective sweep's (read_suite refuses a mix).
  for (const SuiteSweep& s : suite.sweeps) {
    if (s.kind != SuiteSweep::Kind::Ep) results.provenance.buffers = name_of(s.collective.buffers);
  }
  run.keep(results);
  RunControl& control = run.control();
  for (std::size_t i = 0; i < suite.sweeps.size() && !control.interrupted(); ++i) {
    const SuiteSweep& s = suite.sweeps[i];
    if (root) std::cout << banner(s, i, suite.sweeps.size()) << "\n";
    if (s.kind == SuiteSweep::Kind::Ep) {
      EpOutcome outcome = run_ep_sweep(world, run.backend(), control, run.setup(), ep_configs[i], std::cout, policy_notes[i]);
      results.wrong_total += outcome.wrong;
      for (auto& r : outcome.rows) results.ep_rows.push_back(std::move(r));
    } else {
      CollectiveOutcome outcome =
          run_collective_sweep(world, run.backend(), control, run.setup(), s.tests, s.collective, std::cout);
      results.wrong_total += outcome.wrong;
      for (auto& r : outcome.rows) results.rows.push_back(std::move(r));
    }
    if (root && control.interrupted() && i + 1 < suite.sweeps.size()) {
      std::cout << "# Suite stopped: the " << suite.sweeps.size() - i - 1
                << " sweep(s) after this one did not run\n";
    }
  }
  results.avg_busbw_gbps = report::average_busbw(results.rows);
  return run.finish(results);
}

}  // namespace commsweep
