// `commsweep ep --suite FILE` (cli/measure_options.cpp, ep/settings.cpp): any file content parses or throws a
// usage commsweep::Error naming the suite. Input: the suite file.
#include <cstddef>
#include <cstdint>

#include "cli/measure_options.hpp"
#include "ep/ep_config.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::MemoryFile file(data, size);
  const std::string path = file.path();
  const char* argv[] = {"commsweep", "ep", "--suite", path.c_str(), nullptr};
  commsweep::fuzz::usage_errors_only([&] {
    const auto options = commsweep::parse_measure_options(*commsweep::find_command_workload("ep"), 4, argv);
    if (options.measurement) (void)commsweep::ep::expand(commsweep::config_of<commsweep::ep::EpConfig>(*options.measurement));
  });
  return 0;
}
