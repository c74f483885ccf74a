#include "core/exit_codes.hpp"

#include <algorithm>
#include <vector>

namespace commsweep {

namespace {

// The place of CODE in kExitPrecedence; past the end for 0 and codes outside the order.
std::size_t precedence_of(int code) {
  const auto at = std::find(kExitPrecedence.begin(), kExitPrecedence.end(), code);
  return static_cast<std::size_t>(at - kExitPrecedence.begin());
}

// The help lines' width (the --help texts are wrapped at 100 columns).
constexpr std::size_t kExitHelpWidth = 100;

}  // namespace

int combined_exit(int a, int b) {
  if (a == exit_code::kOk) return b;
  if (b == exit_code::kOk) return a;
  return precedence_of(b) < precedence_of(a) ? b : a;
}

int combined_exit(std::initializer_list<int> codes) {
  int code = exit_code::kOk;
  for (const int c : codes) code = combined_exit(code, c);
  return code;
}

std::string_view exit_code_name(int code) {
  for (const auto& row : kExitCodes)
    if (row.code == code) return row.name;
  return "?";
}

std::string exit_codes_help(std::initializer_list<int> codes) {
  std::vector<int> order(codes);
  std::stable_sort(order.begin(), order.end(), [](int a, int b) { return precedence_of(a) < precedence_of(b); });
  std::string text, line = "Exit codes (docs/failures.md), the first that applies:";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const bool last = i + 1 == order.size();
    const bool ok_next = !last && order[i + 1] == exit_code::kOk;
    std::string item = " " + std::string(order[i] == exit_code::kOk && i > 0 ? "else " : "") + std::to_string(order[i]) +
                       " " + std::string(exit_code_name(order[i])) + (last ? "." : ok_next ? ";" : ",");
    if (line.size() + item.size() > kExitHelpWidth) {
      text += line + "\n";
      line = item.substr(1);
    } else {
      line += item;
    }
  }
  return text + line + "\n";
}

std::string measuring_exit_codes_help(bool slow) {
  if (slow)
    return exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kRuntime, exit_code::kTimeout,
                            exit_code::kInterrupted, exit_code::kHealthFail, exit_code::kOutOfMemory,
                            exit_code::kWrongData, exit_code::kOutputFailed, exit_code::kSlow});
  return exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kRuntime, exit_code::kTimeout,
                          exit_code::kInterrupted, exit_code::kHealthFail, exit_code::kOutOfMemory,
                          exit_code::kWrongData, exit_code::kOutputFailed});
}

}  // namespace commsweep
