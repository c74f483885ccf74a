// `commsweep suite --help`: the flags, the file's format with every kind's keys (from the
// registered workloads' tables and the run's), YAML's subset, the exit codes.
#include <boost/program_options.hpp>
#include <sstream>

#include "core/exit_codes.hpp"
#include "run/suite_file.hpp"
#include "run/workload.hpp"

namespace commsweep {
namespace {

// "tests, min_bytes (-b), ..., timer (--timer)": each key and its flag, in lines of at most 88
// columns continued after 15 spaces.
std::string keys_and_flags(const std::vector<const settings::Spec*>& specs) {
  std::string out, line;
  for (const settings::Spec* s : specs) {
    if (s->key.empty()) continue;
    std::string item = s->key;
    if (!s->flag.empty()) item += s->letter ? std::string(" (-") + s->letter + ")" : " (--" + s->flag + ")";
    if (!line.empty() && 15 + line.size() + 2 + item.size() > 88) {
      out += line + ",\n" + std::string(15, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : ", ") + item;
  }
  return out + line;
}

// "  collective:  tests, min_bytes (-b), ...": each kind and its keys, the run's ("timeout") last.
std::string kinds_and_keys() {
  std::string out;
  for (const Workload* w : workloads()) {
    const std::string kind = std::string(w->name) + ":";
    out += "  " + kind + std::string(kind.size() < 13 ? 13 - kind.size() : 1, ' ') + keys_and_flags(entry_specs(*w)) + "\n";
  }
  return out;
}

}  // namespace

std::string suite_help_text(const boost::program_options::options_description& suite_flags) {
  std::ostringstream out;
  out << "commsweep suite: several sweeps of any kind below, one after the other on one\n"
         "communicator (one MPI world, one backend): a table per sweep, as `commsweep TEST...`,\n"
         "`commsweep ep`, `pairs` and `nvlink` print them, and one JSON results file for all (rows,\n"
         "ep_rows, and under \"documents\" each pairs or nvlink sweep's own document).\n\n"
         "Usage: mpirun -np N commsweep suite FILE [flags]\n"
         "       commsweep suite --help\n\n"
      << suite_flags << "\n"
      << "FILE: JSON (a .json name, or text that begins with '[' or '{') or YAML, a list of\n"
         "sweeps (or a mapping whose key \"sweeps\" holds the list, beside an optional\n"
         "\"description\"). Rank 0 reads it and sends its bytes to every rank, so that all run\n"
         "the same suite. Each sweep is a mapping:\n"
         "  name         optional; unique; shown above its table (default \"sweep N\")\n"
         "  kind         " << suite_kinds() << "\n"
      << kinds_and_keys()
      << "Values are those of the flags (`commsweep --help`, `commsweep ep --help`): sizes\n"
         "with K M G T suffixes, the same type and operator names; a list (tests, dtypes,\n"
         "ops; ep's tokens, hidden, topk, experts, dtype, routing, impl) as a YAML/JSON list\n"
         "or a comma list; routing_file, and pairs' topology and cost_from, relative to FILE's\n"
         "folder. A key left out takes the flag's default; -T and -c given to `commsweep suite`\n"
         "override every sweep's timeout and check. `commsweep ep --suite FILE` reads a suite of\n"
         "one ep sweep (the same file runs here). An unknown key (with the closest known one) or\n"
         "a bad value is refused before anything runs, with the file, line, sweep and key (exit\n"
         "code 2).\n\n"
         "YAML: read by yaml-cpp, a subset allowed. Mappings (key: value) and sequences\n"
         "(- item) by indentation with spaces; plain, 'single' and \"double\" quoted scalars;\n"
         "one-line flow sequences [a, b]; # comments. Refused with the line: anchors, aliases,\n"
         "tags, flow mappings { }, block scalars | >, multi-line scalars, several documents,\n"
         "tabs in the indentation, duplicate keys.\n\n"
         "SIGTERM / SIGINT end the running sweep at its next step and skip the rest: the rows\n"
         "measured are printed and written, marked incomplete (exit code 5). The brief\n"
         "preflight, the transport report and the binding happen once, before the first sweep.\n"
      << measuring_exit_codes_help(/*slow=*/true)
      << "As `commsweep --help` says for a sweep (2: also a bad suite file; 6: also a transport that\n"
         "--require-transport / --require-gdr refused, no sweep run); 10: a pairs or nvlink sweep's slow\n"
         "pair or link.\n\n"
         "Example (suites/ci.yaml is one; suites/default.yaml is the full GPU suite):\n"
         "  # nightly.yaml\n"
         "  - name: allreduce-large\n"
         "    kind: collective\n"
         "    tests: [all_reduce]\n"
         "    min_bytes: 1M\n"
         "    max_bytes: 8G\n"
         "    dtypes: [float, bfloat16]\n"
         "  - name: moe\n"
         "    kind: ep\n"
         "    tokens: [128, 4096]\n"
         "    experts: 256\n\n"
         "  mpirun -np 8 commsweep suite nightly.yaml --json nightly.json\n"
         "  mpirun -np 4 commsweep suite suites/ci.yaml --backend mpi\n";
  return out.str();
}

}  // namespace commsweep
