// The exit codes of every commsweep command: one table, one order of precedence. A tool run by a
// nightly job or a Kubernetes podFailurePolicy is read by its exit code first, so a code means
// the same thing whichever command exits with it. docs/failures.md ("Exit codes") shows this
// table and this order; tests/docs/check_exit_codes.py (ctest docs.exit_codes) fails when the
// two differ, and each command's --help lists its codes through exit_codes_help().
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

namespace commsweep {

namespace exit_code {
constexpr int kOk = 0;            // every check passed
constexpr int kMpirun = 1;        // never commsweep's own: mpirun's (signalled, or a rank died)
constexpr int kUsage = 2;         // bad flags or input: nothing measured
constexpr int kRuntime = 3;       // a CUDA, NCCL or MPI call failed
constexpr int kTimeout = 4;       // a hang, ended by the watchdog
constexpr int kInterrupted = 5;   // SIGINT / SIGTERM: the rows measured so far, marked incomplete
constexpr int kHealthFail = 6;    // a health FAIL (health, preflight, transport, or around a run)
constexpr int kOutOfMemory = 7;   // a rank could not allocate its buffers: the run stopped cleanly
constexpr int kWrongData = 8;     // wrong elements (or bytes) in a run, or in the file compared
constexpr int kRegression = 9;    // compare: worse than the baseline
constexpr int kSlow = 10;         // pairs, nvlink: a slow pair of nodes, a slow link or GPU; a row below its expected figure
constexpr int kOutputFailed = 11;  // an output could not be written; the rows kept elsewhere
constexpr int kNoisy = 12;        // compare: a change the run's own noise could explain, not judged
}  // namespace exit_code

struct ExitCodeRow {
  int code;
  std::string_view name;     // the word --help, compare's table and the docs' table use
  std::string_view meaning;  // one line
};

// Every code, in numerical order.
inline constexpr std::array<ExitCodeRow, 13> kExitCodes{{
    {exit_code::kOk, "ok", "every check passed"},
    {exit_code::kMpirun, "mpirun", "never commsweep's own: mpirun's, signalled or after a rank died without a word"},
    {exit_code::kUsage, "bad input", "bad flags or input: nothing measured"},
    {exit_code::kRuntime, "call failed", "a CUDA, NCCL or MPI call failed"},
    {exit_code::kTimeout, "hang", "a hang, ended by the watchdog's timeout"},
    {exit_code::kInterrupted, "interrupted", "interrupted by SIGINT or SIGTERM: the rows so far kept, incomplete"},
    {exit_code::kHealthFail, "health FAIL", "a health, preflight or transport check FAILed, or the health snapshots around a run found a FAIL"},
    {exit_code::kOutOfMemory, "out of memory", "a rank could not allocate its buffers"},
    {exit_code::kWrongData, "wrong data", "wrong elements in a run, or in the results file compared"},
    {exit_code::kRegression, "regression", "worse than the baseline (compare)"},
    {exit_code::kSlow, "slow", "a slow pair of nodes, a slow link or GPU (pairs, nvlink), or a row below its expected busbw's FAIL floor"},
    {exit_code::kOutputFailed, "output not written", "an output could not be written; the message names where the rows are"},
    {exit_code::kNoisy, "noisy", "a change the run's own noise could explain: not judged (rerun, or raise -n)"},
}};

// Where several happen in one run, the first of this order is the exit code: what makes the
// others meaningless first (nothing was measured, the run broke, its data is wrong), then what
// cut it short or lost its file, then the verdicts on a run that did finish, the hardware's
// before the baseline's before the fabric's speed; last, a change too noisy to judge (no verdict
// at all, so anything else said outranks it). 0 and 1 are never combined (1 is mpirun's).
inline constexpr std::array<int, 11> kExitPrecedence{
    exit_code::kUsage,      exit_code::kRuntime,      exit_code::kTimeout,    exit_code::kOutOfMemory,
    exit_code::kWrongData,  exit_code::kInterrupted,  exit_code::kOutputFailed, exit_code::kHealthFail,
    exit_code::kRegression, exit_code::kSlow,         exit_code::kNoisy};

// The code of two outcomes of one run: the one first in kExitPrecedence; 0 yields to any
// other; a code outside the order (mpirun's 1, a shell's 127) to any in it.
int combined_exit(int a, int b);
int combined_exit(std::initializer_list<int> codes);

// kExitCodes' name of CODE ("wrong data"), or "?" for a code not in the table.
std::string_view exit_code_name(int code);

// "Exit codes (docs/failures.md), the first that applies: 2 bad input, 3 call failed; else 0
// ok." for CODES, in the order of kExitPrecedence (0 last), wrapped at 100 columns: how each
// command's --help lists the codes it can end with.
std::string exit_codes_help(std::initializer_list<int> codes);
// exit_codes_help of the codes every measuring command (a sweep, ep, suite, pairs, nvlink) can
// end with; SLOW: with kSlow too (pairs, nvlink, a suite, a collective sweep: its expected figures).
std::string measuring_exit_codes_help(bool slow);

}  // namespace commsweep
