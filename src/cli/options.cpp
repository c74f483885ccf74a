#include "cli/options.hpp"

#include <algorithm>

#include "cli/commands.hpp"
#include "collectives/collective_test.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"

namespace commsweep {
namespace {

// A word that is neither a command nor a test: the closest of both, then both lists.
std::string unknown_name_message(const std::string& name) {
  std::vector<std::string> commands = command_names();
  std::vector<std::string> tests = {"all"};
  for (const auto* k : collective_tests()) tests.emplace_back(k->name);
  std::vector<std::string> every = commands;
  every.insert(every.end(), tests.begin(), tests.end());
  const std::string guess = closest_name(name, every);
  std::string message = "unknown command or test '" + name + "'";
  if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
  auto listed = [](const std::vector<std::string>& names) {
    std::string text;
    for (const auto& n : names) text += " " + n;
    return text;
  };
  return message + "; the commands are:" + listed(commands) + "; the tests are:" + listed(tests) +
         " (commsweep --help)";
}

}  // namespace

void check_test_words(const std::vector<std::string>& words) {
  for (const auto& word : words) {
    for (const auto& name : split_commas(word)) {
      if (name != "all" && find_collective_test(name) == nullptr) throw_usage(unknown_name_message(name));
    }
  }
}

std::vector<std::string> help_arguments(int argc, char** argv) {
  const std::string program = argv[0];
  if (argc > 3) throw_usage("help takes one command or test, not '" + std::string(argv[3]) + "' (commsweep help CMD)");
  const std::string word = argc == 3 ? argv[2] : "";
  if (word.empty() || word == "help" || word == "--help" || word == "-h") return {program, "--help"};
  const std::vector<std::string> commands = command_names();
  if (std::find(commands.begin(), commands.end(), word) == commands.end()) check_test_words({word});
  return {program, word, "--help"};
}

}  // namespace commsweep
