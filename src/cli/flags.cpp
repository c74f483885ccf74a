#include "cli/flags.hpp"

#include <vector>

#include "runtime/error.hpp"

namespace commsweep {

namespace po = boost::program_options;

po::variables_map parse_flags(int argc, const char* const* argv, int first,
                              const po::options_description& options,
                              const po::positional_options_description& positional,
                              const std::string& prefix, const std::string& suffix) {
  // Boost skips the first element as the program's name.
  std::vector<const char*> args{argc > 0 ? argv[0] : "commsweep"};
  for (int i = first; i < argc; ++i) args.push_back(argv[i]);
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
  } catch (const po::error& e) {
    throw Error(ErrorKind::Usage, prefix + e.what() + suffix);
  }
  return vm;
}

}  // namespace commsweep
