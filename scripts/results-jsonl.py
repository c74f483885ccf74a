#!/usr/bin/env python3
"""Prints a commsweep results file (schema commsweep.results/2; /1 files read alike) as JSON lines for log
collectors: one line per row of `rows` and `ep_rows`, then one summary line. Each line is an
object with "commsweep" ("row", "ep_row" or "summary"), "test_id" and "file", so that a
collector (Fluent Bit, Loki, ...) can select and index them without the whole document, whose
size can pass the 16 KiB at which container runtimes split a log line.

    results-jsonl.py --test-id nightly /results/20260101T000000Z-nightly.json
"""

import argparse
import json
import sys

# Provenance fields small enough to repeat on the summary line.
SUMMARY_PROVENANCE = ["commsweep_version", "git_hash", "started_at", "backend", "ranks",
                      "nccl_version", "mpi_version"]


def lines(doc, test_id, path):
    common = {"test_id": test_id, "file": path}
    for row in doc.get("rows", []):
        yield dict({"commsweep": "row"}, **common, **row)
    for row in doc.get("ep_rows", []):
        yield dict({"commsweep": "ep_row"}, **common, **row)
    prov = doc.get("provenance", {})
    summary = dict({"commsweep": "summary"}, **common, **doc.get("summary", {}))
    summary.update({k: prov[k] for k in SUMMARY_PROVENANCE if k in prov})
    summary["hosts"] = sorted(set(prov.get("hosts", [])))
    yield summary


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--test-id", required=True)
    p.add_argument("results")
    opts = p.parse_args()
    try:
        with open(opts.results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("results-jsonl: cannot read %s: %s" % (opts.results, e), file=sys.stderr)
        return 2
    for line in lines(doc, opts.test_id, opts.results):
        print(json.dumps(line, separators=(",", ":"), sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
