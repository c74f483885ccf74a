// `commsweep ep`'s command line (cli/ep_options.cpp): any argv parses or throws a usage
// commsweep::Error; a parsed sweep expands into its cases. Input: the arguments after "ep",
// one per line.
#include <cstddef>
#include <cstdint>

#include "cli/ep_options.hpp"
#include "ep/ep_config.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::Argv args(data, size, {"ep"});
  commsweep::fuzz::usage_errors_only([&] {
    const auto options = commsweep::parse_ep_options(args.argc(), args.argv());
    (void)commsweep::ep::expand(options.config);
  });
  return 0;
}
