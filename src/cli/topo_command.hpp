// What the verbs of `commsweep topo` share (cli/topo_command.cpp, cli/topo_shapes.cpp).
#pragma once

#include <string>
#include <vector>

#include "settings/setting.hpp"

namespace commsweep {

// argv[0] the program, argv[1] "topo", argv[2] the verb: its flags (SPECS, whose words' spec the
// words fill), a usage Error naming a bad one; the flags given.
settings::Flags parse_topo_verb(int argc, char** argv, const std::vector<const settings::Spec*>& specs);
// The flag's value, or FALLBACK when it was not given.
std::string flag_or(const settings::Flags& given, const char* name, const std::string& fallback = {});

int run_topo_generate(int argc, char** argv);
int run_topo_shapes(int argc, char** argv);

}  // namespace commsweep
