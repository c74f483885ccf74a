#!/usr/bin/env python3
"""Checks what the master entrypoint left after `commsweep suite` (COMMSWEEP_SUITE): one
'# Suite sweep i of N' banner per sweep, in order, each sweep's tables against the flags that
mean the same (--sweep, as tests/mpi/suite_check.py takes them), the one results file in the
results folder (<UTC time>-<test id>.json: valid, complete, ok, rows and ep_rows equal to the
printed rows, arguments `suite FILE --json PATH`, ranks on the worker pods), and the JSON lines
(one per row and EP row, one summary).

    check_suite_e2e.py --stdout FILE --results-dir DIR --test-id ID --np N --hosts h0,h1 \
        --schema SCHEMA --suite FILE --sweep KIND:NAME=FLAGS...
Standard library only.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import Failures, verdict  # noqa: E402
from suite_check import check_results, check_sweeps, parse_sweeps  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--stdout", "--results-dir", "--test-id", "--hosts", "--schema", "--suite"):
        p.add_argument(name, required=True)
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--sweep", action="append", default=[])
    opts = p.parse_args()
    sweeps = parse_sweeps(p, opts.sweep)
    fail = Failures()
    with open(opts.stdout) as f:
        lines = f.read().splitlines()
    tables = "\n".join(l for l in lines if not l.startswith("{"))
    records = [json.loads(l) for l in lines if l.startswith("{")]
    printed, printed_ep = check_sweeps(opts, sweeps, opts.np, tables, fail)
    fail.check(len(printed) > 0 and len(printed_ep) > 0, "no collective or no EP rows printed")

    names = sorted(os.listdir(opts.results_dir)) if os.path.isdir(opts.results_dir) else []
    if fail.check(len(names) == 1 and names[0].endswith("-%s.json" % opts.test_id),
                  "expected one <UTC time>-%s.json in %s, found %s" % (opts.test_id, opts.results_dir, names)):
        path = os.path.join(opts.results_dir, names[0])
        with open(path) as f:
            doc = json.load(f)
        given = doc["provenance"]["arguments"]
        fail.check(given[:3] == ["suite", opts.suite, "--json"] and len(given) == 4,
                   "provenance.arguments %s: expected suite %s --json PATH" % (given, opts.suite))
        check_results(path, opts.schema, printed, printed_ep, given, fail)
        fail.check(doc["provenance"]["hosts"] == opts.hosts.split(","),
                   "ranks ran on %s, expected %s" % (doc["provenance"]["hosts"], opts.hosts))
        kinds = [r.get("commsweep") for r in records]
        fail.check(kinds.count("row") == len(doc["rows"]) and kinds.count("ep_row") == len(doc["ep_rows"])
                   and kinds.count("summary") == 1,
                   "JSON lines: %d row, %d ep_row, %d summary for %d rows and %d EP rows"
                   % (kinds.count("row"), kinds.count("ep_row"), kinds.count("summary"),
                      len(doc["rows"]), len(doc["ep_rows"])))
        fail.check(all(r.get("file") == path and r.get("test_id") == opts.test_id for r in records),
                   "a JSON line without the file or test id")
    return verdict(fail, "%d sweeps, %d rows, %d EP rows, %d JSON lines"
                   % (len(sweeps), len(printed), len(printed_ep), len(records)), tables, "")


if __name__ == "__main__":
    sys.exit(main())
