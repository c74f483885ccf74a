// The one way every command reads its flags with Boost.Program_options.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "settings/program_options.hpp"
#include "settings/setting.hpp"

namespace commsweep {

// Parses argv[first..argc) (argv[0] is the program; `first` skips the command's name, and
// the verb's for `topo`). Abbreviated flags are refused: a typo must not silently pick another
// flag. A bad flag throws a usage Error: prefix + Boost's message + suffix.
boost::program_options::variables_map parse_flags(
    int argc, const char* const* argv, int first,
    const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional,
    const std::string& prefix, const std::string& suffix);

// A command's own flags, argv[2...] (argv[1] is its name): a bad flag is a usage Error naming it,
// "NAME: ... (commsweep NAME --help)".
boost::program_options::variables_map parse_command_flags(
    int argc, char** argv, const boost::program_options::options_description& flags,
    const boost::program_options::positional_options_description* positional = nullptr);

// The same for a command run without MPI (`env`, `transport`), whose errors main prints after
// "commsweep NAME: " already: "... (commsweep NAME --help)", without a second "NAME: ".
boost::program_options::variables_map parse_offline_command_flags(
    int argc, char** argv, const boost::program_options::options_description& flags,
    const boost::program_options::positional_options_description* positional = nullptr);

// A command's flags and, after them, its words (the files `baseline` and `compare` read), the
// setting WORDS (Spec::words): argv[2...]; a bad flag is a usage Error "... (commsweep NAME --help)".
boost::program_options::variables_map parse_command_words(int argc, char** argv,
                                                          const boost::program_options::options_description& flags,
                                                          const settings::Spec& words);

// TABLE's flags in VM applied to CONFIG (settings/program_options.hpp); a bad value is a usage
// Error PREFIX + the setting's message + " (commsweep NAME --help)", as a bad flag is.
template <typename Config>
settings::Origins apply_command_flags(const settings::Table<Config>& table, Config& config,
                                      const boost::program_options::variables_map& vm, const std::string& prefix,
                                      const std::string& command) {
  try {
    return settings::apply_flags(table, config, vm);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Usage) throw;
    throw Error(ErrorKind::Usage, prefix + e.what() + " (commsweep " + command + " --help)");
  }
}

// The values of a list setting given (a command's words), empty when not given.
std::vector<std::string> given_list(const settings::Flags& given, const settings::Spec& spec);

}  // namespace commsweep
