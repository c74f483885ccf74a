// libFuzzer target: the topology XML reader and the facts and checks built on it must never
// crash, hang or expand anything, whatever the bytes (a topology file comes from a ConfigMap
// or a user). Parse errors are the expected outcome for most inputs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "topology/facts.hpp"
#include "topology/validate.hpp"
#include "topology/xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace commsweep::topology;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const XmlElement root = parse_xml(text);
    const TopologyFacts facts = read_topology_facts(root);
    (void)facts.nic_names();
  } catch (const XmlError&) {
  }
  // The whole validate path without a node (no file system reads).
  ValidateOptions options;
  const auto report = validate_topology(text, options);
  (void)format_report("fuzz.xml", report);
  return 0;
}
