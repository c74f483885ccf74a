#include "judge/verdict.hpp"

namespace commsweep::judge {

const char* name_of(Verdict v) {
  switch (v) {
    case Verdict::NotJudged: return "NOT_JUDGED";
    case Verdict::Same: return "SAME";
    case Verdict::Pass: return "PASS";
    case Verdict::Warn: return "WARN";
    case Verdict::Noisy: return "NOISY";
    case Verdict::Fail: return "FAIL";
  }
  return "?";
}

int level_of(Verdict v) {
  switch (v) {
    case Verdict::NotJudged: return -1;
    case Verdict::Same: return 0;
    case Verdict::Pass: return 1;
    case Verdict::Warn: return 2;
    case Verdict::Noisy: return -2;  // not judged: no level on the SAME-to-FAIL scale
    case Verdict::Fail: return 3;
  }
  return -1;
}

}  // namespace commsweep::judge
