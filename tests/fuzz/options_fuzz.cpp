// The sweep's command line (cli/measure_options.cpp, core/sizes.cpp): any argv either parses or
// throws commsweep::Error (exit code 2). Nothing may crash, exit, abort or throw anything else;
// a parsed sweep's size list must stay small enough to plan (a size list that would take
// gigabytes is a hang in disguise). Input: the arguments, one per line.
#include <cstddef>
#include <cstdint>

#include "cli/measure_options.hpp"
#include "collectives/settings.hpp"
#include "fuzz_input.hpp"
#include "core/sizes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::Argv args(data, size);
  commsweep::fuzz::usage_errors_only([&] {
    const auto options = commsweep::parse_measure_options(commsweep::default_workload(), args.argc(), args.argv());
    if (options.measurement) {
      (void)commsweep::size_list(commsweep::config_of<commsweep::CollectiveSettings>(*options.measurement).sweep);
    }
  });
  return 0;
}
