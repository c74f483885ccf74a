// The preflight table: a row per host and check (PASS / WARN / FAIL, the reason, the fix on
// the line below), and the one-line summary printed before a sweep.
#pragma once

#include <string>
#include <vector>

#include "fabric/preflight.hpp"

namespace commsweep::fabric {

std::string render_preflight_table(const std::vector<NodeReport>& nodes);
// "# preflight: 12 PASS, 3 WARN, 0 FAIL on 2 hosts (commsweep preflight for details)" and
// the FAIL rows.
std::string render_preflight_brief(const std::vector<NodeReport>& nodes);

}  // namespace commsweep::fabric
