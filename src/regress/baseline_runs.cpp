#include "regress/baseline_runs.hpp"

#include "core/error.hpp"
#include "core/strings.hpp"

namespace commsweep::regress {

std::string run_settings_text(const report::Provenance& p) {
  std::string text = p.backend + ", " + count_of(static_cast<std::size_t>(p.ranks), "rank") + ", buffers " + p.buffers + ", arguments '";
  bool first = true;
  for (std::size_t i = 0; i < p.arguments.size(); ++i) {
    const std::string& a = p.arguments[i];
    if (a == "--json") {
      ++i;  // and its value
      continue;
    }
    if (a.rfind("--json=", 0) == 0) continue;
    text += (first ? "" : " ") + a;
    first = false;
  }
  return text + "'";
}

void require_comparable_runs(const std::vector<std::string>& files, const std::vector<report::Results>& runs,
                             bool allow_incomplete, bool allow_mixed) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].complete && !allow_incomplete) {
      const std::string why = runs[i].interrupted_by.empty() ? "" : " (" + runs[i].interrupted_by + ")";
      throw_usage(files[i] + ": an incomplete run (complete: false" + why +
                  "): the sizes it did not reach would be missing from the baseline; give "
                  "--allow-incomplete to use it anyway");
    }
    if (i > 0 && !allow_mixed && run_settings_text(runs[i].provenance) != run_settings_text(runs[0].provenance)) {
      throw_usage(files[i] + ": taken with other settings than " + files[0] + " (" +
                  run_settings_text(runs[i].provenance) + " vs " + run_settings_text(runs[0].provenance) +
                  "); give --allow-mixed to put them in one baseline");
    }
  }
}

}  // namespace commsweep::regress
