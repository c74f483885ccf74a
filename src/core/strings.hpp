// Small text and system helpers that several folders share.
#pragma once

#include <string>

namespace commsweep {

// ASCII upper case (environment names, NCCL_DEBUG levels).
std::string upper_case(std::string text);

// This machine's name as gethostname(2) gives it; "unknown" when it fails.
std::string system_host_name();

}  // namespace commsweep
