#!/usr/bin/env python3
"""Runs `commsweep suite FILE` under mpiexec and checks every table and the one results file.

    suite_check.py --commsweep BIN --mpiexec MPIEXEC --np 3 --schema SCHEMA --workdir DIR \
        --suite suites/ci.yaml \
        --sweep 'collective:collectives-small=all -b 8 -e 64K -f 4 -d float,bfloat16 -n 2 -w 1' \
        --sweep 'ep:moe-ep-small=--tokens 16,64 --hidden 256 ... -n 2 -w 1' \
        -- --backend mpi

Each --sweep names one sweep of the suite, in order, with the flags of
`commsweep TEST...` / `commsweep ep` that mean the same: written here independently of the
suite file, so that a misread suite shows as a difference. Checked: exit 0; one
'# Suite sweep i of N: NAME' banner per sweep, in order; under each, the tables of that sweep in
nccl-tests' layout (or the EP layout) with exactly the expected rows, #wrong 0 and OK footers;
the --json file valid against the schema, its rows and ep_rows equal to the printed rows in
order, wrong_total 0, complete. Standard library only.
"""

import argparse
import json
import os
import re
import shlex
import sys

sys.dont_write_bytecode = True  # the modules beside this file: no __pycache__ in the sources
from commsweep_check import Failures, launcher, run, verdict  # noqa: E402
from ep_check import EpSweep, check_table, parse_ep_table  # noqa: E402
from ep_check import row_key as ep_row_key  # noqa: E402
from expected_sweep import Sweep  # noqa: E402
from nccl_table import check_rows_expected, check_section_layout, parse_table, row_key  # noqa: E402
from results_json import validate  # noqa: E402

BANNER = re.compile(r"^# Suite sweep (\d+) of (\d+): (.+) \((.*)\)$")
BOUND_S = 240


def split_by_banner(stdout, fail):
    """[(name, text under its banner)] in order, and the text before the first banner."""
    chunks, head = [], []
    for line in stdout.splitlines():
        m = BANNER.match(line)
        if m:
            chunks.append((m.group(3), []))
        (chunks[-1][1] if chunks else head).append(line)
    fail.check(all(l.startswith("#") for l in head), "output before the first sweep: %r" % head)
    return [(name, "\n".join(lines)) for name, lines in chunks]


def parse_sweeps(parser, specs):
    """The --sweep KIND:NAME=FLAGS specs as (name, kind, flags + --backend mpi), in order."""
    sweeps = []
    for spec in specs:
        kind, _, rest = spec.partition(":")
        name, _, args = rest.partition("=")
        if kind not in ("collective", "ep") or not name:
            parser.error("--sweep %r: expected collective:NAME=FLAGS or ep:NAME=FLAGS" % spec)
        sweeps.append((name, kind, shlex.split(args) + ["--backend", "mpi"]))
    return sweeps


def check_sweeps(opts, sweeps, nranks, out, fail):
    """The tables under each banner; returns the printed collective rows and EP rows."""
    chunks = split_by_banner(out, fail)
    fail.check([c[0] for c in chunks] == [s[0] for s in sweeps],
               "banners for %s, expected %s" % ([c[0] for c in chunks], [s[0] for s in sweeps]))
    printed, printed_ep = [], []
    for (name, kind, args), (_, text) in zip(sweeps, chunks):
        sub = Failures()
        if kind == "collective":
            sweep = Sweep(args)
            sections = parse_table(text, sub)
            for s in sections:
                check_section_layout(s, nranks, sub)
            check_rows_expected(sweep, sections, nranks, "ok", sub)
            printed += [(s.test,) + row_key(r) for s in sections for r in s.rows]
        else:
            sweep = EpSweep(args)
            table = parse_ep_table(text, sub)
            check_table(table, sweep, nranks, "ok", sub)
            printed_ep += [ep_row_key(r) for r in table.rows]
        fail.messages += ["sweep %s: %s" % (name, m) for m in sub.messages]
    return printed, printed_ep


def check_results(path, schema_path, printed, printed_ep, suite_args, fail):
    if not fail.check(os.path.exists(path), "no results file %s" % path):
        return
    with open(path) as f:
        doc = json.load(f)
    with open(schema_path) as f:
        schema = json.load(f)
    errors = validate(doc, schema, schema)
    for e in errors[:20]:
        fail.check(False, "results JSON does not follow the schema: " + e)
    if errors:
        return
    rows = [(r["test"], r["size_bytes"], r["count"], r["type"], r["redop"], r["root"])
            for r in doc["rows"]]
    fail.check(rows == printed, "JSON rows (%d) differ from the printed collective rows (%d)"
               % (len(rows), len(printed)))
    ep = [(r["tokens"], r["hidden"], r["topk"], r["experts"], r["dtype"], r["routing"],
           r.get("impl", "alltoallv")) for r in doc["ep_rows"]]
    fail.check(ep == printed_ep, "JSON ep_rows (%d) differ from the printed EP rows (%d)"
               % (len(ep), len(printed_ep)))
    summary = doc["summary"]
    fail.check(summary["wrong_total"] == 0, "wrong_total %s" % summary["wrong_total"])
    fail.check(summary["ok"] is True and summary["complete"] is True,
               "summary not ok and complete: %s" % summary)
    fail.check(doc["provenance"]["arguments"] == suite_args,
               "provenance.arguments %s, expected %s" % (doc["provenance"]["arguments"], suite_args))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--suite", required=True)
    p.add_argument("--sweep", action="append", default=[], metavar="KIND:NAME=FLAGS",
                   help="one sweep of the suite, in order: collective:NAME=TEST... flags, or "
                        "ep:NAME=flags of commsweep ep")
    p.add_argument("rest", nargs="*", help="further flags of commsweep suite (after --)")
    opts = p.parse_args()
    sweeps = parse_sweeps(p, opts.sweep)

    os.makedirs(opts.workdir, exist_ok=True)
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    suite_args = ["suite", opts.suite] + opts.rest + ["--json", results]
    cmd = launcher(opts.mpiexec, opts.np) + [opts.commsweep] + suite_args
    rc, out, err, _, timed_out = run(cmd, BOUND_S, opts.workdir)
    fail = Failures()
    fail.check(not timed_out, "the suite did not finish within %d s" % BOUND_S)
    fail.check(rc == 0, "exit code %s, expected 0" % rc)
    fail.check("commsweep:" not in err, "an error on stderr")
    printed, printed_ep = check_sweeps(opts, sweeps, opts.np, out, fail)
    fail.check(len(printed) > 0 or not any(k == "collective" for _, k, _ in sweeps),
               "no collective rows printed")
    check_results(results, opts.schema, printed, printed_ep, suite_args, fail)
    return verdict(fail, "%d sweeps of %s on %d ranks" % (len(sweeps), opts.suite, opts.np), out, err)


if __name__ == "__main__":
    sys.exit(main())
