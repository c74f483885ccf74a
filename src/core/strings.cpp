#include "core/strings.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace commsweep {

std::string upper_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string system_host_name() {
  std::array<char, 256> name{};  // HOST_NAME_MAX is 64 on Linux
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace commsweep
