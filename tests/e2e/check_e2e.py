#!/usr/bin/env python3
"""Checks what the master entrypoint of an emulated Volcano Job left: its stdout (the tables
that rank 0 printed through mpirun, then the results as JSON lines) and the results
directory (one file named <UTC time>-<test id>.json, valid against the schema, complete, ok,
equal to the tables row by row, its ranks on the worker pods given by --hosts).

    check_e2e.py --stdout FILE --results-dir DIR --test-id ID --np N --hosts h0,h1 \
        --schema SCHEMA -- COMMSWEEP ARGS (without --json)
Exit 0 and PASSED, or 1 and the problems. Standard library only.
"""

import argparse
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import Failures  # noqa: E402
from expected_sweep import Sweep  # noqa: E402
from nccl_table import check_rows_expected, check_section_layout, parse_table  # noqa: E402
from results_json import check_json  # noqa: E402

RESULTS_NAME = re.compile(r"^\d{8}T\d{6}Z-(.+)\.json$")


def split_output(text):
    """The tables (lines up to the JSON lines) and the JSON lines."""
    table, jsonl = [], []
    for line in text.splitlines():
        (jsonl if line.startswith("{") else table).append(line)
    return "\n".join(table), jsonl


def check_results_file(opts, sections, args, fail):
    names = sorted(os.listdir(opts.results_dir)) if os.path.isdir(opts.results_dir) else []
    if not fail.check(len(names) == 1, "expected one results file in %s, found %s"
                      % (opts.results_dir, names)):
        return None
    m = RESULTS_NAME.match(names[0])
    fail.check(m and m.group(1) == opts.test_id, "results file %s is not <UTC time>-%s.json"
               % (names[0], opts.test_id))
    path = os.path.join(opts.results_dir, names[0])
    with open(path) as f:
        doc = json.load(f)
    with open(opts.schema) as f:
        schema = json.load(f)
    # commsweep saw the --json the master added, after the sweep's arguments.
    given = doc["provenance"]["arguments"]
    fail.check(given[:-2] == args and given[-2] == "--json",
               "provenance.arguments %r: expected %r then --json PATH" % (given, args))
    check_json(doc, schema, sections, Sweep(args), opts.np, given, fail)
    fail.check(doc["summary"]["complete"] is True and doc["summary"]["ok"] is True,
               "summary not complete and ok: %s" % doc["summary"])
    hosts = opts.hosts.split(",")
    fail.check(doc["provenance"]["hosts"] == hosts, "ranks ran on %s, expected %s"
               % (doc["provenance"]["hosts"], hosts))
    return doc, path


def check_json_lines(jsonl, doc, path, opts, fail):
    try:
        records = [json.loads(line) for line in jsonl]
    except ValueError as e:
        fail.check(False, "a JSON line does not parse: %s" % e)
        return
    rows = [r for r in records if r.get("commsweep") == "row"]
    summaries = [r for r in records if r.get("commsweep") == "summary"]
    fail.check(len(rows) == len(doc["rows"]), "%d row lines for %d rows"
               % (len(rows), len(doc["rows"])))
    fail.check(len(summaries) == 1, "%d summary lines" % len(summaries))
    for r in records:
        fail.check(r.get("test_id") == opts.test_id and r.get("file") == path,
                   "JSON line without the test id and file: %s" % str(r)[:200])
    if rows and doc["rows"]:
        first = {k: v for k, v in rows[0].items() if k not in ("commsweep", "test_id", "file")}
        fail.check(first == doc["rows"][0], "the first row line differs from the file's row")
    if summaries:
        fail.check(summaries[0].get("ok") is True, "summary line not ok: %s" % summaries[0])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--stdout", "--results-dir", "--test-id", "--hosts", "--schema"):
        p.add_argument(name, required=True)
    p.add_argument("--np", type=int, required=True)
    p.add_argument("args", nargs=argparse.REMAINDER)
    opts = p.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    fail = Failures()
    with open(opts.stdout) as f:
        table, jsonl = split_output(f.read())
    sections = parse_table(table, fail)
    fail.check(len(sections) > 0, "no table printed")
    for s in sections:
        check_section_layout(s, opts.np, fail)
    check_rows_expected(Sweep(args), sections, opts.np, "ok", fail)
    found = check_results_file(opts, sections, args, fail)
    if found:
        check_json_lines(jsonl, found[0], found[1], opts, fail)
    if fail.messages:
        print("FAILED (%d problems):" % len(fail.messages))
        for m in fail.messages[:40]:
            print("  - " + m)
        return 1
    print("PASSED: %d tables, %d JSON lines, results %s" % (len(sections), len(jsonl),
                                                            found[1] if found else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
