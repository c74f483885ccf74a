// The CSV of figures (report/figure.hpp), written once for every workload: one row per figure,
// the header first, RFC 4180 (fields quoted where they hold a comma, a quote or a line break;
// lines end in CRLF). Columns (docs/output.md, "CSV"): file, workload, case, then one column per
// case part (test, size, node_a, ...: every part any figure has, in the order first met, empty
// where a figure has no such part), then metric, value, unit, better, wrong, where it was taken
// (ranks, nodes, gpus, link) and its spread (iterations, cv_pct, p50_us, p95_us, p99_us, min_us,
// max_us, rank_spread_pct). Numbers as JSON writes them (the shortest text that reads back the
// same double); empty where not known.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/figure.hpp"

namespace commsweep::report {

// One results file's figures, under its name (the `file` column).
struct CsvSource {
  std::string file;
  const Results* results = nullptr;
};

// The CSV of every figure of SOURCES to OUT (linear in the figures: a pairs run of 1,000 nodes
// is a million rows).
void write_csv(std::ostream& out, const std::vector<CsvSource>& sources);

// FIELD as RFC 4180 writes it: quoted, its quotes doubled, where it holds a comma, a quote, a CR
// or an LF; as it is otherwise.
std::string csv_field(const std::string& field);

}  // namespace commsweep::report
