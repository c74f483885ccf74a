// libFuzzer target: a suite file's bytes through the reader and the validation of
// `commsweep suite` (the YAML subset or JSON, then every sweep through the flag parsers),
// as YAML and as JSON. Bad input must end as a usage error (commsweep::Error), never as a
// crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/suite_command.hpp"
#include "core/error.hpp"

namespace {

const commsweep::SuiteOverrides& fuzz_options() {
  static const commsweep::SuiteOverrides options = [] {
    const char* argv[] = {"commsweep", "suite", "fuzz.yaml", "--backend", "mpi", "-T", "30"};
    return commsweep::parse_suite_command_line(7, argv).overrides;
  }();
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // A relative routing_file resolves against a folder that does not exist: nothing is read.
  for (const char* path : {"/nonexistent-fuzz/suite.yaml", "/nonexistent-fuzz/suite.json"}) {
    try {
      commsweep::read_suite(path, text, fuzz_options());
    } catch (const commsweep::Error& e) {
      if (e.kind() != commsweep::ErrorKind::Usage) __builtin_trap();  // only usage errors
    }
  }
  return 0;
}
