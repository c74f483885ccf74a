// A settings table as Boost.Program_options sees it: the option descriptions and their help
// (flag, value, default, text) generated from the entries, and the flags a command line gave.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep::settings {

// Adds the options of `specs` listed under `section` (every one with a flag when section is
// empty) to `options`: a value option showing its default, or a switch for presence flags.
void describe(boost::program_options::options_description& options, const std::vector<const Spec*>& specs,
              const std::string& section = {});

// The settings of `specs` given on the command line (Boost's shown defaults left out).
Flags given_flags(const boost::program_options::variables_map& vm, const std::vector<const Spec*>& specs);

}  // namespace commsweep::settings
