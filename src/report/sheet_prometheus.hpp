// The Prometheus metrics of one workload's sheet (report/figure.hpp), written once for every
// workload with matrix results (`commsweep nvlink --prometheus`, the test-only grid's), in
// report/prometheus.hpp's text format for node-exporter's textfile collector:
//   commsweep_<workload>_<metric>_<unit>{<case parts>}   every figure ("GB/s": gbps, "us": us)
//   commsweep_<workload>_slow{<case parts>,metric}       1 where the workload judged it slow, else 0
//   commsweep_<workload>_wrong                           wrong elements (or words) over the run
//   commsweep_<workload>_complete                        1, or 0 where a signal or a failure ended it
//   commsweep_<workload>_exit_code                       the command's exit code (docs/failures.md)
// The labels of a family are the case parts of all its figures (as the CSV's columns), empty
// where a figure has no such part: Prometheus reads an empty label as absent, and every sample of
// a family keeps the same label names, as the textfile collector requires; a case given twice
// (a pair measured again) is one sample, the last.
#pragma once

#include <string>

#include "report/figure.hpp"

namespace commsweep::report {

std::string render_sheet_prometheus(const Sheet& sheet, int exit_code);

}  // namespace commsweep::report
