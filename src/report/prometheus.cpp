#include "report/prometheus.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>

namespace commsweep::report {
namespace {

std::string escape_label(const std::string& v) {
  std::string out;
  for (char ch : v) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '"') out += "\\\"";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out;
}

}  // namespace

void Exposition::family(const std::string& name, const std::string& help) {
  out_ << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
  name_ = name;
}

void Exposition::sample(const PromLabels& labels, double value) {
  out_ << name_ << "{";
  bool first = true;
  for (const PromLabels* set : std::initializer_list<const PromLabels*>{&common_, &labels}) {
    for (const auto& [k, v] : *set) {
      out_ << (first ? "" : ",") << k << "=\"" << escape_label(v) << "\"";
      first = false;
    }
  }
  char buf[64];
  // Whole numbers (counts, Unix seconds) exactly; measurements to 9 significant digits.
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", value);
  }
  out_ << "} " << buf << "\n";
}

}  // namespace commsweep::report
