#include "nvlink/record.hpp"

namespace commsweep::nvlink {

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::CeWrite: return "ce_write";
    case Metric::CeRead: return "ce_read";
    case Metric::CeBidir: return "ce_bidir";
    case Metric::SmWrite: return "sm_write";
    case Metric::SmRead: return "sm_read";
    case Metric::SmBidir: return "sm_bidir";
  }
  return "?";
}

bool by_copy_engine(Metric m) { return m == Metric::CeWrite || m == Metric::CeRead || m == Metric::CeBidir; }
bool bidirectional(Metric m) { return m == Metric::CeBidir || m == Metric::SmBidir; }

}  // namespace commsweep::nvlink
