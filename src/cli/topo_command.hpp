// What the verbs of `commsweep topo` share (cli/topo_command.cpp, cli/topo_shapes.cpp).
#pragma once

#include <boost/program_options.hpp>
#include <string>

namespace commsweep {

// argv[0] the program, argv[1] "topo", argv[2] the verb: its flags, a usage Error naming a bad one.
boost::program_options::variables_map parse_topo_verb(int argc, char** argv,
                                                      const boost::program_options::options_description& flags,
                                                      const boost::program_options::positional_options_description& positional = {});
// The flag's value, or FALLBACK when it was not given.
std::string flag_or(const boost::program_options::variables_map& vm, const char* name, const std::string& fallback = {});

int run_topo_generate(int argc, char** argv);
int run_topo_shapes(int argc, char** argv);

}  // namespace commsweep
