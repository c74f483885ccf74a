// `commsweep ep`'s command line (cli/measure_options.cpp, ep/settings.cpp): any argv parses or throws a usage
// commsweep::Error; a parsed sweep expands into its cases. Input: the arguments after "ep",
// one per line.
#include <cstddef>
#include <cstdint>

#include "cli/measure_options.hpp"
#include "ep/ep_config.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::Argv args(data, size, {"ep"});
  commsweep::fuzz::usage_errors_only([&] {
    const auto options = commsweep::parse_measure_options(*commsweep::find_command_workload("ep"), args.argc(), args.argv());
    if (options.measurement) (void)commsweep::ep::expand(commsweep::config_of<commsweep::ep::EpConfig>(*options.measurement));
  });
  return 0;
}
