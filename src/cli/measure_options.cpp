#include "cli/measure_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "settings/document_file.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

std::string command_of(const Workload& w) { return w.command.empty() ? "commsweep" : "commsweep " + std::string(w.command); }

// The command line's own flags around the workload's and the run's settings: --suite FILE (a
// suite file of one sweep of this kind: the same keys, so that `commsweep suite FILE` runs the
// same sweep), --help, --version (the collectives' command line), and the words (the collectives'
// tests; refused by the other commands).
constexpr const char* kSettingsFileFlag = "suite";

struct CommandLineSpecs {
  settings::Spec settings_file, help = settings::shared::help(), version, words;
  explicit CommandLineSpecs(const Workload& w) {
    settings_file = settings::command_flag(kSettingsFileFlag, settings::text(), std::nullopt,
                                           "read the settings from a suite file of one sweep of kind " +
                                               std::string(w.name) + " (commsweep suite --help); flags given "
                                               "override its keys");
    version = settings::command_flag("version", settings::presence(), std::nullopt, "print the version");
    words = settings::command_flag("words", settings::list_of(settings::text(), false), std::nullopt, "");
    words.words = -1;  // named so that they can be refused (or read as tests) by name
  }
  // Those --help lists after the run's settings.
  std::vector<const settings::Spec*> after_run(const Workload& w) const {
    std::vector<const settings::Spec*> out;
    out.push_back(&settings_file);
    out.push_back(&help);
    if (w.command.empty()) out.push_back(&version);
    return out;
  }
};

// The option sections --help shows: the workload's, then the run's, then the fabric's.
std::vector<po::options_description> sections(const Workload& w) {
  const CommandLineSpecs own(w);
  std::vector<po::options_description> out;
  for (const auto& [section, title] : w.sections) {
    out.emplace_back(std::string(title));
    settings::describe(out.back(), w.specs(), std::string(section));
  }
  if (!document_specs(w).empty()) {
    out.emplace_back("Reports (every command with a --json document of its own: docs/output.md)");
    settings::describe(out.back(), document_specs(w), kReportFilesSection);
  }
  out.emplace_back("Run (every measuring command)");
  settings::describe(out.back(), run_settings().specs(), kRunSettingsSection);
  settings::describe(out.back(), own.after_run(w));
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
  const CommandLineSpecs own(w);
  po::positional_options_description positional;
  settings::describe_words(hidden, positional, {&own.words});
  all.add(hidden);
  const po::variables_map vm = parse_flags(argc, argv, root ? 1 : 2, all, positional, root ? "" : command + ": ",
                                           root ? " (see --help)" : " (see " + command_of(w) + " --help)");
  MeasureOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  const settings::Flags own_flags = settings::given_flags(vm, {&own.words, &own.help, &own.version});
  std::vector<std::string> words;
  if (const auto it = own_flags.find("words"); it != own_flags.end())
    for (const auto& item : settings::read(own.words.type, it->second).items) words.push_back(item.text);
  if (!words.empty() && !root) {
    throw_usage(command + ": unexpected argument '" + words.front() + "' (" + command_of(w) + " takes flags only; see " +
                command_of(w) + " --help)");
  }
  o.list = root && !words.empty() && words.front() == "list";
  // `commsweep prefligt --help`: the help of a word that names nothing would hide the typo.
  if (root && !o.list) check_test_words(words);
  o.help = own_flags.count("help") > 0;
  o.version = root && own_flags.count("version") > 0;
  if (o.help || o.version || o.list) return o;
  o.run = read_run_settings(settings::given_flags(vm, run_settings().specs()));
  settings::Flags flags = settings::given_flags(vm, w.specs());
  if (root) flags.merge(test_words(words));
  std::unique_ptr<settings::DocumentFile> file;
  const std::string file_flag(kSettingsFileFlag);
  const settings::Flags file_given = settings::given_flags(vm, {&own.settings_file});
  if (const auto it = file_given.find(file_flag); it != file_given.end()) {
    file = settings::read_document_file(file_flag, settings::read(own.settings_file.type, it->second).text,
                                        entry_specs(w), std::string(w.name),
                                        command_of(w));
    o.run.timeout_s = read_run_settings(settings::given_flags(vm, run_settings().specs()), &file->entry).timeout_s;
  }
  try {
    o.run.reports = read_report_files(w, settings::given_flags(vm, document_specs(w)), file ? &file->entry : nullptr);
    o.measurement = w.read(flags, file ? &file->entry : nullptr, o.run);
  } catch (const Error& e) {
    // Every refusal of a command says whose ("ep: --topk: ..."), once.
    const std::string prefix = command + ": ";
    if (e.kind() != ErrorKind::Usage || root || std::string(e.what()).rfind(prefix, 0) == 0) throw;
    throw_usage(prefix + e.what());
  }
  o.offline = !w.offline_flag.empty() && flags.count(std::string(w.offline_flag)) > 0;
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
