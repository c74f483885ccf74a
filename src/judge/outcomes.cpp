#include "judge/outcomes.hpp"

#include "core/exit_codes.hpp"

namespace commsweep::judge {

Outcomes run_ending(std::uint64_t wrong_total, bool complete, bool health_fail) {
  Outcomes o;
  o.wrong_data = wrong_total > 0;
  o.interrupted = !complete;
  o.health_fail = health_fail;
  return o;
}

int exit_code_of(const Outcomes& o) {
  const auto code = [](bool found, int c) { return found ? c : exit_code::kOk; };
  return combined_exit({code(o.wrong_data, exit_code::kWrongData), code(o.interrupted, exit_code::kInterrupted),
                        code(o.output_failed, exit_code::kOutputFailed), code(o.health_fail, exit_code::kHealthFail),
                        code(o.regression, exit_code::kRegression), code(o.slow, exit_code::kSlow),
                        code(o.noisy, exit_code::kNoisy)});
}

}  // namespace commsweep::judge
