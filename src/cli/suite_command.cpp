// `commsweep suite FILE`: the suite file's sweeps on one communicator, a table each, one JSON
// results file. The file is read through the registered workloads (run/suite_file.hpp) and run
// as one measuring run (run/measure.hpp).
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/suite_command.hpp"
#include "collectives/settings.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "run/measure.hpp"
#include "run/suite_file.hpp"
#include "runtime/world.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"
#include "suite/document.hpp"

namespace commsweep {

std::string suite_help_text(const boost::program_options::options_description& suite_flags);  // cli/suite_help.cpp

namespace {
namespace po = boost::program_options;

// The suite's own flags: -c (the collectives' setting, with what it does to a suite), --help, and
// the suite file (the word).
struct SuiteSpecs {
  settings::Spec check, help = settings::shared::help(), file;
  SuiteSpecs() {
    check = collective_check_spec();
    check.default_text.reset();  // absent: each sweep's key, or its kind's default
    check.help = "collectives and pairs: verify N times (0: off); EP: verify when N > 0; given, it overrides every "
                 "sweep's key \"check\"";
    file = settings::command_flag("file", settings::list_of(settings::text(), false), std::nullopt, "");
    file.words = -1;
  }
  std::vector<const settings::Spec*> flags() const { return {&check, &help}; }

 private:
  // -c as `commsweep TEST...` reads it: the collectives' setting, its messages.
  static settings::Spec collective_check_spec() {
    for (const settings::Spec* spec : collective_settings().specs())
      if (spec->flag == "check") return *spec;
    throw Error(ErrorKind::Runtime, "the collectives' settings have no -c/--check");
  }
};

po::options_description suite_flags(const SuiteSpecs& specs) {
  po::options_description d("For the whole suite");
  settings::describe(d, run_settings().specs(), kRunSettingsSection);
  settings::describe(d, specs.flags());
  po::options_description fabric("Fabric (commsweep preflight --help, commsweep transport --help)");
  settings::describe(fabric, run_settings().specs(), kFabricSection);
  d.add(fabric);
  return d;
}

}  // namespace

SuiteCommandLine parse_suite_command_line(int argc, const char* const* argv) {
  const SuiteSpecs specs;
  po::options_description all = suite_flags(specs);
  po::positional_options_description positional;
  settings::describe_words(all, positional, {&specs.file});
  const po::variables_map vm = parse_flags(argc, argv, 2, all, positional, "suite: ", " (see commsweep suite --help)");
  SuiteCommandLine o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  const settings::Flags given = settings::given_flags(vm, {&specs.check, &specs.help, &specs.file});
  o.help = given.count("help") > 0;
  if (o.help) return o;
  std::vector<std::string> files;
  if (const auto it = given.find("file"); it != given.end())
    for (const auto& item : settings::read(specs.file.type, it->second).items) files.push_back(item.text);
  if (files.size() != 1) {
    throw_usage("suite: give one suite file (" + std::to_string(files.size()) + " given; see commsweep suite --help)");
  }
  o.path = files.front();
  if (o.path.empty()) throw_usage("suite: the suite file's name is empty");
  o.overrides.run_flags = settings::given_flags(vm, run_settings().specs());
  o.overrides.run = read_run_settings(o.overrides.run_flags);
  if (const auto it = given.find("check"); it != given.end())
    o.overrides.check = static_cast<int>(settings::read(specs.check.type, it->second).whole);
  return o;
}

std::string suite_help_text() { return suite_help_text(suite_flags(SuiteSpecs())); }

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

}  // namespace

int run_suite_command(World& world, int argc, char** argv, char** envp) {
  const SuiteCommandLine o = parse_suite_command_line(argc, argv);
  if (o.help) {
    if (world.rank() == 0) std::cout << suite_help_text();
    return exit_code::kOk;
  }
  RunRequest request{o.overrides.run, o.arguments};
  RankContext context;
  SuiteSweeps suite;
  // After --json is checked (a flag's error before the file's), before anything runs.
  return run_sweeps(
      world, request,
      [&] {
        suite = read_suite(o.path, shared_suite_text(world, o.path, request.timeout_s), o.overrides);
        return suite.sweeps;
      },
      envp, context);
}

}  // namespace commsweep
