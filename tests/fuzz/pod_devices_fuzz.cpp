// libFuzzer target: the SR-IOV inputs of fabric/pod_devices.hpp, i.e. a PCIDEVICE_* value (comma
// list or JSON), Multus's network-status JSON and the downward-API annotations file. Bad
// input must end in PodDeviceError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fabric/pod_devices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commsweep::fabric;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string iface;
  try {
    (void)parse_pcidevice("PCIDEVICE_FUZZ", text);
  } catch (const PodDeviceError&) {
  }
  try {
    (void)parse_network_status(text, &iface);
  } catch (const PodDeviceError&) {
  }
  try {
    (void)parse_network_status_file(text, &iface);
  } catch (const PodDeviceError&) {
  }
  return 0;
}
