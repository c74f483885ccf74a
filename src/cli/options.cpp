#include "cli/options.hpp"

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

}  // namespace commsweep
