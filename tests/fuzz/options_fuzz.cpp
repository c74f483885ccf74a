// The sweep's command line (cli/options.cpp, core/sizes.cpp): any argv either parses or
// throws commsweep::Error (exit code 2). Nothing may crash, exit, abort or throw anything else;
// a parsed sweep's size list must stay small enough to plan (a size list that would take
// gigabytes is a hang in disguise). Input: the arguments, one per line.
#include <cstddef>
#include <cstdint>

#include "cli/options.hpp"
#include "fuzz_input.hpp"
#include "core/sizes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::Argv args(data, size);
  commsweep::fuzz::usage_errors_only([&] {
    const auto options = commsweep::parse_options(args.argc(), args.argv());
    (void)commsweep::size_list(options.sweep);
  });
  return 0;
}
