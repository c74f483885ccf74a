#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "collectives/collective_test.hpp"

namespace commsweep {

// collective_tests() is generated from the descriptors present (tests_table.cpp.in).

const CollectiveTest* find_collective_test(std::string_view name) {
  auto squash = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c != '_' && c != '-') out.push_back(static_cast<char>(std::tolower(c)));
    }
    return out;
  };
  const std::string wanted = squash(name);
  for (const auto* t : collective_tests()) {
    if (squash(t->name) == wanted || squash(t->name) + "perf" == wanted) return t;
  }
  return nullptr;
}

std::string bus_factor_help_lines() {
  std::vector<std::pair<std::string_view, std::string>> groups;  // factor text, names
  for (const auto* t : collective_tests()) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == t->bus_factor_text; });
    if (it == groups.end()) {
      groups.emplace_back(t->bus_factor_text, std::string(t->name));
    } else {
      it->second += ", " + std::string(t->name);
    }
  }
  std::string out, line;
  for (const auto& [factor, names] : groups) {
    const std::string group = names + " " + std::string(factor);
    if (!line.empty() && line.size() + 3 + group.size() > 88) {
      out += "  " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : "   ") + group;
  }
  if (!line.empty()) out += "  " + line + "\n";
  return out;
}

namespace expect {

pattern::Expect reduced(const pattern::Spec& spec, std::size_t index_base) {
  return pattern::Expect{spec, 1, 0, 0, index_base};
}

pattern::Expect copied_from(const pattern::Spec& spec, int src_rank, std::size_t index_base) {
  return pattern::Expect{spec, 0, src_rank, 0, index_base};
}

pattern::Expect copied_in_blocks(const pattern::Spec& spec, std::size_t block,
                                 std::size_t index_base) {
  return pattern::Expect{spec, 0, 0, block, index_base};
}

}  // namespace expect
}  // namespace commsweep
