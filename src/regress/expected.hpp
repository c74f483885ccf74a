// Expected figures: what a healthy machine of a GPU model, GPU count and fabric measures, with
// its source, and the ratios below which a row is WARN and FAIL. It answers "is this number
// normal?" on a first run, where no baseline exists yet (docs/expected.md).
//
// The table is results/expected/*.yaml, built into the binary (src/CMakeLists.txt), and a user's
// file (--expected FILE, COMMSWEEP_EXPECTED) read by the suite reader, so that every mistake
// names FILE:LINE and the key:
//
//   schema: commsweep.expected/1
//   entries:
//     - id: h200-x2-all_reduce     # unique; a user's entry of a built-in id replaces it
//       gpu: NVIDIA H200           # as NVML names it (provenance gpus[].name), or "any"
//       gpus: 2                    # GPUs a node (= ranks on one node), or "any"
//       nodes: 1                   # default 1; "4+": four or more
//       fabric: nvlink4            # nvlink3 nvlink4 (one node), ib roce (between nodes), any
//       nvls: off                  # off on any: NCCL_NVLS_ENABLE as the run recorded it
//       backend: nccl              # default nccl; mpi only for tests of the judge itself
//       workload: all_reduce       # a collective, or ep, or nvlink
//       metric: busbw_gbps         # collectives; ep: time_us; nvlink: bandwidth_gbps latency_us
//       case: {impl: lsa, ...}     # optional: the figure's case parts it holds for (its keys)
//       busbw_gbps: {SIZE: value ...}  # the metric's curve over the figure's size: bytes, or
//                                  # tokens a rank (ep); one or more sizes (block mapping)
//       shape: ID                  # optional: below the first size, ID's curve scaled to it
//       from: SIZE                 # optional: no expectation below SIZE
//       warn_below: 0.9 | {SIZE: ratio ...}  # a ratio, or steps that apply from SIZE up
//       fail_below: 0.8 | {SIZE: ratio ...}
//       source: {kind: published|own-run, cite/url, or machine/date/commit/command/url}
//
// Nothing here knows MPI or NCCL: the run's facts come from its provenance (report/result.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judge/verdict.hpp"
#include "report/figure.hpp"
#include "report/result.hpp"

namespace commsweep::regress {

inline constexpr const char* kExpectedSchema = "commsweep.expected/1";
inline constexpr const char* kExpectedMetric = "busbw_gbps";
// The metrics an entry may give, each a figure's metric and unit (report/figure.hpp): the
// collectives' busbw, ep's phase time, nvlink's pair bandwidth (case test: ce_write ...) and latency.
inline constexpr const char* kExpectedMetrics[] = {"busbw_gbps", "time_us", "bandwidth_gbps", "latency_us"};
// A metric in us is a time: lower is better, and its curve is read as one (expected_at).
bool expected_time_metric(const std::string& metric);

// (size in bytes, value), sorted by size.
using SizeCurve = std::vector<std::pair<std::uint64_t, double>>;

struct ExpectedSource {
  std::string kind;  // "published" or "own-run"
  std::string cite;  // published: who, where, when, what was measured
  std::string url;   // published: a page a reader can open; own-run: the docs/figures.md section
  std::string machine, date, commit, command;  // own-run
  // One line: the citation, or "own run: MACHINE, DATE, COMMIT: COMMAND", then the url.
  std::string line() const;
};

struct ExpectedEntry {
  std::string id;
  std::string gpu;  // "any" matches every model (and none: the mpi backend)
  int gpus = 0;     // a node's; 0: any (nvlink's pairs, measured one at a time)
  int nodes = 1;
  bool more_nodes = false;  // "4+"
  std::string fabric;       // nvlink3 nvlink4 ib roce any
  std::string nvls;         // off on any
  std::string backend = "nccl";
  std::string workload;
  std::string metric = kExpectedMetric;
  // The case parts a figure must have (name, value), e.g. ep's impl, dtype, phase; empty: any.
  std::vector<std::pair<std::string, std::string>> match_case;
  SizeCurve points;
  std::string shape;  // an entry id, or ""
  std::uint64_t from = 0;
  SizeCurve warn_below, fail_below;  // steps: each ratio from its size up
  ExpectedSource source;
  std::string origin;  // "FILE:LINE" (a built-in file's name for the shipped ones)
};

// The entries in force: the built-in ones, with a user's file over them.
class ExpectedTable {
 public:
  const std::vector<ExpectedEntry>& entries() const { return entries_; }
  const ExpectedEntry* find(const std::string& id) const;
  // Adds E, or replaces the entry of its id.
  void put(ExpectedEntry e);
  // Where the entries came from: "built-in" or "built-in and FILE".
  const std::string& origin() const { return origin_; }
  void set_origin(std::string origin) { origin_ = std::move(origin); }

 private:
  std::vector<ExpectedEntry> entries_;
  std::string origin_ = "built-in";
};

// The entries of a file's TEXT read from PATH. Throws a usage Error (exit 2) naming "NAMED
// PATH:LINE", the key and what is wrong: a syntax error, a wrong or missing schema line, an
// unknown key (with the closest name), a missing key, a value of the wrong kind, a size that
// does not parse, a ratio outside 0-2 or a fail floor above the warn one, a duplicate id, a shape
// that names no entry. NAMED: "--expected" or "COMMSWEEP_EXPECTED=". BASE: the entries a shape
// may name besides the file's own (the built-in ones); CHECK_SHAPES false leaves the shapes to
// the caller (the built-in files, whose shapes may name a later file's entry).
std::vector<ExpectedEntry> parse_expected(const std::string& path, const std::string& text,
                                          const std::string& named = "--expected",
                                          const ExpectedTable* base = nullptr, bool check_shapes = true);
// The built-in table (results/expected/*.yaml as built in; a broken one is a bug: it throws).
const ExpectedTable& builtin_expected();
// The built-in table with the file at PATH over it (PATH empty: the built-in one).
ExpectedTable expected_table(const std::string& path, const std::string& named = "--expected");

// What a run was measured on, as its provenance recorded it.
struct RunFacts {
  std::string backend;             // "nccl", "mpi"
  std::vector<std::string> gpus;   // each rank's GPU name (empty on the mpi backend without GPUs)
  int ranks = 0;
  int nodes = 1;
  std::string link;                // between nodes: "IB", "RoCE", "" (unknown)
  bool nvls_off = false;           // NCCL_NVLS_ENABLE=0 in the run's NCCL environment
};
RunFacts facts_of(const report::Provenance& provenance, const std::optional<report::TransportReport>& transport);

// The entries that apply to a run, one per workload, and the line said once about them.
struct Expectations {
  std::vector<const ExpectedEntry*> entries;
  const ExpectedTable* table = nullptr;
  // "# expected: ..." (rank 0 prints it once): which entries apply, or that none does ("no
  // expectation for NVIDIA H20 x 8 on NVLink"); "" where nothing is said (the mpi backend).
  std::string note;
  // A collective's entry (busbw, no case), or none.
  const ExpectedEntry* for_workload(const std::string& workload) const;
  // The entry of FIGURE's workload, metric and case (the last that applies), or none.
  const ExpectedEntry* for_figure(const report::Figure& figure) const;
};
// TABLE must outlive the result. SCOPE: the workloads the run measures (a collective's test
// names, "ep", "nvlink"): the entries and the note are theirs, and the note names those of them
// without an entry ("no expectation for ep"); empty: every workload (commsweep expected, tests).
Expectations match(const ExpectedTable& table, const RunFacts& facts, const std::vector<std::string>& scope = {});

// The value ENTRY expects at SIZE (log-log between its sizes, its shape's below them, falling
// with the size below the first, flat above the last; a time the other way round: flat below
// the first, growing with the size above the last); empty below `from`.
std::optional<double> expected_at(const ExpectedTable& table, const ExpectedEntry& entry, std::uint64_t size);
// The step of CURVE in force at SIZE (the last whose size is <= SIZE; the first below all).
double ratio_at(const SizeCurve& curve, std::uint64_t size);

// The one judge's words (judge/verdict.hpp): Pass, Warn or Fail here.
using ExpectedVerdict = judge::Verdict;
// The judge: OF_EXPECTED (busbw / expected) below fail_below is FAIL, below warn_below WARN.
ExpectedVerdict judge(const ExpectedEntry& entry, std::uint64_t size, double of_expected);

// One figure of any workload (report/figure.hpp) against its entry: the value expected at its
// size (Series::size: bytes, or ep's tokens), its share of it and the verdict. The workload says
// where (its rank, node or GPU pair): regress knows no workload.
struct FigureExpectation {
  const ExpectedEntry* entry = nullptr;
  double expected = 0;     // in the figure's unit
  double of_expected = 0;  // value / expected; expected / value for a time (below 1: worse)
  ExpectedVerdict verdict = ExpectedVerdict::Pass;
  double floor = 0;        // the ratio it fell below; 0 on a pass
};
// "time_us" of a time in us, "bandwidth_gbps" of a bandwidth in GB/s: the entry's metric.
std::string figure_metric(const report::Figure& figure);
// Empty where no entry applies to FIGURE, or none at its size.
std::optional<FigureExpectation> expectation_of(const Expectations& expectations, const report::Figure& figure);
// "FAIL expected: WHAT 1005.60 us is 0.50 of the expected 502.80 us (ENTRY, FAIL below 0.70); WHERE"
std::string expected_finding_line(const FigureExpectation& e, const std::string& what, double value,
                                  const std::string& unit, const std::string& where);

// Sets each half's expected_gbps where an entry applies to ROW's test and size.
void annotate(const Expectations& expectations, report::ResultRow& row);
// The finding of an annotated ROW whose two halves are both below a floor (the better half
// named, with its slowest rank and that rank's host from HOSTS), or none.
std::optional<report::ExpectedFinding> finding_of(const Expectations& expectations, const report::ResultRow& row,
                                                  const std::vector<std::string>& hosts);

}  // namespace commsweep::regress
