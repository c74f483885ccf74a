// A settings table as Boost.Program_options sees it: the option descriptions and their help
// (flag, value, default, text) generated from the entries, the command's words (the arguments no
// flag takes), and the flags a command line gave. The one place of commsweep that declares
// options to Boost: every command's flags are specs (settings/setting.hpp), shared ones declared
// once (settings/shared_flags.hpp).
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep::settings {

// Adds the options of `specs` listed under `section` (every one with a flag when section is
// empty) to `options`: a value option showing its default, or a switch for presence flags. The
// words' specs (Spec::words) are left out (describe_words adds them), but those with a help text:
// flags the words fill too (transport's --log).
void describe(boost::program_options::options_description& options, const std::vector<const Spec*>& specs,
              const std::string& section = {});

// Adds the words' specs of `specs` (Spec::words: how many) to `positional` in their order (the
// arguments no flag takes fill them), and to `options` where it does not hold them yet.
void describe_words(boost::program_options::options_description& options,
                    boost::program_options::positional_options_description& positional,
                    const std::vector<const Spec*>& specs);

// The settings of `specs` given on the command line (Boost's shown defaults left out); a
// repeatable, multitoken or words' setting as a list of its values.
Flags given_flags(const boost::program_options::variables_map& vm, const std::vector<const Spec*>& specs);

// TABLE's flags given on the command line applied to CONFIG over its defaults, then its checks.
template <typename Config>
Origins apply_flags(const Table<Config>& table, Config& config, const boost::program_options::variables_map& vm) {
  return apply(table, config, given_flags(vm, table.specs()));
}

// TABLE's options under `title` (empty: untitled), those of `section` (every one when empty).
template <typename Config>
boost::program_options::options_description options_of(const Table<Config>& table, const std::string& title = {},
                                                        const std::string& section = {}) {
  boost::program_options::options_description options(title);
  describe(options, table.specs(), section);
  return options;
}

}  // namespace commsweep::settings
