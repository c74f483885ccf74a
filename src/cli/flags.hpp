// The one way every command reads its flags with Boost.Program_options.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

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

// A command's flags and, after them, its words (the files `baseline` and `compare` read) into
// WORDS: argv[2...]; a bad flag is a usage Error "... (commsweep NAME --help)".
boost::program_options::variables_map parse_command_words(int argc, char** argv,
                                                          const boost::program_options::options_description& flags,
                                                          const char* words_name, std::vector<std::string>* words);

}  // namespace commsweep
