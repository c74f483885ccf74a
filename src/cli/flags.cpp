#include "cli/flags.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "settings/program_options.hpp"

namespace commsweep {

namespace po = boost::program_options;
namespace {

// A "%word%" token in ARG, or empty. Boost.Program_options builds its messages by replacing
// such placeholders (%canonical_option%, %value%, ...) with the argument itself, and loops
// without end when the argument holds the placeholder (found by ep_options_fuzz): so an
// argument with one is refused before Boost sees it.
std::string placeholder_in(const std::string& arg) {
  for (std::size_t open = arg.find('%'); open != std::string::npos; open = arg.find('%', open + 1)) {
    std::size_t end = open + 1;
    while (end < arg.size() && (std::isalnum(static_cast<unsigned char>(arg[end])) || arg[end] == '_')) ++end;
    if (end > open + 1 && end < arg.size() && arg[end] == '%') return arg.substr(open, end - open + 1);
  }
  return {};
}

// ": did you mean '--tokens'?" for an unknown long flag TYPED close to one of OPTIONS' own
// (the names the positional words fill are no flags to suggest); "" when none is close (the
// did-you-mean of test names and suite keys: core/strings.hpp's closest_name).
std::string flag_guess(const std::string& typed, const po::options_description& options,
                       const po::positional_options_description& positional) {
  if (typed.rfind("--", 0) != 0) return {};  // a short flag: every other letter is one edit away
  std::vector<std::string> words;
  for (unsigned i = 0; i < std::min(positional.max_total_count(), 8u); ++i) words.push_back(positional.name_for_position(i));
  std::vector<std::string> names;
  for (const auto& option : options.options()) {
    const std::string& name = option->long_name();
    if (!name.empty() && std::find(words.begin(), words.end(), name) == words.end()) names.push_back(name);
  }
  const std::string guess = closest_name(typed.substr(2), names);
  return guess.empty() ? std::string() : ": did you mean '--" + guess + "'?";
}

}  // namespace

po::variables_map parse_flags(int argc, const char* const* argv, int first,
                              const po::options_description& options,
                              const po::positional_options_description& positional,
                              const std::string& prefix, const std::string& suffix) {
  // Boost skips the first element as the program's name.
  std::vector<const char*> args{argc > 0 ? argv[0] : "commsweep"};
  for (int i = first; i < argc; ++i) {
    if (const std::string token = placeholder_in(argv[i]); !token.empty()) {
      throw Error(ErrorKind::Usage, prefix + "argument " + std::to_string(i) + " holds '" + token +
                                        "': no argument of commsweep holds a %word% token" + suffix);
    }
    args.push_back(argv[i]);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(static_cast<int>(args.size()), args.data())
                  .options(options)
                  .positional(positional)
                  .style(po::command_line_style::default_style &
                         ~po::command_line_style::allow_guessing)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw Error(ErrorKind::Usage, prefix + e.what() + flag_guess(e.get_option_name(), options, positional) + suffix);
  } catch (const po::error& e) {
    throw Error(ErrorKind::Usage, prefix + e.what() + suffix);
  }
  return vm;
}

po::variables_map parse_command_flags(int argc, char** argv, const po::options_description& flags,
                                     const po::positional_options_description* positional) {
  const std::string command = argv[1];
  return parse_flags(argc, argv, 2, flags, positional ? *positional : po::positional_options_description(),
                     command + ": ", " (commsweep " + command + " --help)");
}

po::variables_map parse_offline_command_flags(int argc, char** argv, const po::options_description& flags,
                                             const po::positional_options_description* positional) {
  return parse_flags(argc, argv, 2, flags, positional ? *positional : po::positional_options_description(), "",
                     " (commsweep " + std::string(argv[1]) + " --help)");
}

po::variables_map parse_command_words(int argc, char** argv, const po::options_description& flags,
                                     const settings::Spec& words) {
  po::options_description all;
  all.add(flags);
  po::positional_options_description positional;
  settings::describe_words(all, positional, {&words});
  return parse_flags(argc, argv, 2, all, positional, "", " (commsweep " + std::string(argv[1]) + " --help)");
}

std::vector<std::string> given_list(const settings::Flags& given, const settings::Spec& spec) {
  std::vector<std::string> out;
  const auto it = given.find(spec.flag);
  if (it == given.end()) return out;
  for (const auto& item : settings::read(spec.type, it->second).items) out.push_back(item.text);
  return out;
}

}  // namespace commsweep
