#include "cli/measure_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "settings/document_file.hpp"
#include "settings/program_options.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

std::string command_of(const Workload& w) { return w.command.empty() ? "commsweep" : "commsweep " + std::string(w.command); }

// The option sections --help shows: the workload's, then the run's, then the fabric's.
std::vector<po::options_description> sections(const Workload& w) {
  std::vector<po::options_description> out;
  for (const auto& [section, title] : w.sections) {
    out.emplace_back(std::string(title));
    settings::describe(out.back(), w.specs(), std::string(section));
  }
  out.emplace_back("Run (every measuring command)");
  settings::describe(out.back(), run_settings().specs(), kRunSettingsSection);
  if (!w.settings_file_flag.empty()) {
    const std::string flag(w.settings_file_flag);
    out.back().add_options()(flag.c_str(), po::value<std::string>(),
                             "read axes and settings from a suite file of one sweep (below); flags given override it");
  }
  out.back().add_options()("help,h", "show this help");
  if (w.command.empty()) out.back().add_options()("version", "print the version");
  out.emplace_back("Fabric (commsweep preflight --help, commsweep transport --help)");
  settings::describe(out.back(), run_settings().specs(), kFabricSection);
  return out;
}

// The words before the flags of `commsweep TEST...` as the collectives' key "tests".
settings::Flags test_words(const std::vector<std::string>& words) {
  settings::Flags flags;
  if (words.empty()) return flags;
  settings::Given g;
  g.where = "the tests";
  g.from = settings::Given::From::CommandLine;
  std::string joined;
  for (const auto& word : words) joined += (joined.empty() ? "" : ",") + word;
  g.value = joined;
  flags.emplace("tests", std::move(g));
  return flags;
}

}  // namespace

MeasureOptions parse_measure_options(const Workload& w, int argc, const char* const* argv) {
  const bool root = w.command.empty();
  const std::string command(w.command);
  po::options_description all;
  for (const auto& d : sections(w)) all.add(d);
  po::options_description hidden;  // the test hooks, not in --help
  settings::describe(hidden, w.specs(), "hidden");
  all.add(hidden).add_options()("words", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("words", -1);  // named so that they can be refused (or read as tests) by name
  const po::variables_map vm = parse_flags(argc, argv, root ? 1 : 2, all, positional, root ? "" : command + ": ",
                                           root ? " (see --help)" : " (see " + command_of(w) + " --help)");
  MeasureOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  const auto words = vm.count("words") ? vm["words"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (!words.empty() && !root) {
    throw_usage(command + ": unexpected argument '" + words.front() + "' (" + command_of(w) + " takes flags only; see " +
                command_of(w) + " --help)");
  }
  o.list = root && !words.empty() && words.front() == "list";
  // `commsweep prefligt --help`: the help of a word that names nothing would hide the typo.
  if (root && !o.list) check_test_words(words);
  o.help = vm.count("help") > 0;
  o.version = root && vm.count("version") > 0;
  if (o.help || o.version || o.list) return o;
  o.run = read_run_settings(settings::given_flags(vm, run_settings().specs()));
  settings::Flags flags = settings::given_flags(vm, w.specs());
  if (root) flags.merge(test_words(words));
  std::unique_ptr<settings::DocumentFile> file;
  const std::string file_flag(w.settings_file_flag);
  if (!file_flag.empty() && vm.count(file_flag)) {
    file = settings::read_document_file(file_flag, vm[file_flag].as<std::string>(), entry_specs(w), std::string(w.name),
                                        command_of(w));
    o.run.timeout_s = read_run_settings(settings::given_flags(vm, run_settings().specs()), &file->entry).timeout_s;
  }
  try {
    o.measurement = w.read(flags, file ? &file->entry : nullptr, o.run);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Usage || w.usage_prefix.empty()) throw;
    throw_usage(std::string(w.usage_prefix) + e.what());  // every refusal of the command says whose
  }
  o.offline = !w.offline_flag.empty() && vm.count(std::string(w.offline_flag)) > 0;
  return o;
}

std::string measure_help_text(const Workload& w) {
  std::ostringstream out;
  out << w.help_intro();
  if (w.command.empty()) out << "\nOther commands (each has --help):\n" << commands_help() << "\n";
  po::options_description visible;
  for (const auto& d : sections(w)) visible.add(d);
  out << visible << "\n" << w.help_end();
  return out.str();
}

}  // namespace commsweep
