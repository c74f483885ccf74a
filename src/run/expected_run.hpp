// The expected figures of a measuring run (regress/expected.hpp): the file read before anything
// is measured (--expected, else COMMSWEEP_EXPECTED, over the built-in table), matched to the
// run's hardware once its provenance is known, and the collective rows judged under each table.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "regress/expected.hpp"
#include "report/result.hpp"
#include "runtime/world.hpp"

namespace commsweep {

// The expectations file: --expected FLAG, else COMMSWEEP_EXPECTED (what a Volcano Job's
// ConfigMap would set in every pod), and how it was given.
struct ExpectedFile {
  std::string path;   // empty: the built-in table alone
  std::string named;  // "--expected" or "COMMSWEEP_EXPECTED="
};
ExpectedFile expected_file(const std::string& flag);

// Rank 0 reads the table; a bad file is a usage Error (exit 2) on every rank, naming FILE:LINE
// on rank 0. Other ranks get the built-in table (only rank 0 judges).
regress::ExpectedTable expected_table(World& world, const ExpectedFile& file, double timeout_s);

// The findings of one table's rows, annotated already (regress::annotate): one per row below a
// floor, which the sweep prints under its table (rank 0) and keeps for the summary.
std::vector<report::ExpectedFinding> expected_findings(const regress::Expectations& expectations,
                                                       const std::vector<report::ResultRow>& rows,
                                                       const std::vector<std::string>& hosts);

// EP: each phase of ROW gets its expected figure where an entry applies (the row's figures,
// report::figures_of, judged by regress::expectation_of: ep's entries are of the phase's time).
void annotate_ep(const regress::Expectations& expectations, report::EpRow& row);
// The findings of annotated EP rows: one per phase below a floor, naming its slowest rank and
// that rank's host (HOSTS: per rank), as the sweep prints them under its table.
std::vector<report::ExpectedFinding> ep_expected_findings(const regress::Expectations& expectations,
                                                          const std::vector<report::EpRow>& rows,
                                                          const std::vector<std::string>& hosts);

}  // namespace commsweep
