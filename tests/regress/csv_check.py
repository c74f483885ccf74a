#!/usr/bin/env python3
"""`commsweep csv` (issue 43): every measurement of a results file as a CSV row, read back with
Python's csv module. A collective sweep and an EP sweep (results/samples), an nvlink run and a
pairs run (tests/fixtures), a real collective sweep on the mpi backend (a second), each: one row
per measurement, counted against the JSON, values equal to the JSON's; several files under one
header; RFC 4180 (CRLF, quoting); -o written atomically, a folder that does not exist refused with
exit 11 naming it; a malformed file exit 2 naming the file and the field, nothing written.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import launcher  # noqa: E402


def csv_rows(opts, files, found):
    job = subprocess.run([opts.commsweep, "csv"] + files, capture_output=True, timeout=120)
    if job.returncode != 0:
        found.append("csv %s: exit %d: %s" % (files, job.returncode, job.stderr.decode()[-400:]))
        return []
    text = job.stdout.decode()
    if text.count("\r\n") != text.count("\n"):
        found.append("csv %s: a line does not end in CRLF" % files)
    return list(csv.DictReader(io.StringIO(text, newline="")))


def expected_results(doc):
    """(workload, metric) -> values: each row half's time, algbw, busbw; each EP phase's."""
    want = {}
    for row in doc.get("rows", []):
        for half in ("out_of_place", "in_place"):
            for metric, field in (("time", "time_us"), ("algbw", "algbw_gbps"), ("busbw", "busbw_gbps")):
                want.setdefault(("collective", metric), []).append(row[half][field])
    for row in doc.get("ep_rows", []):
        for phase in ("dispatch", "combine"):
            for metric, field in (("time", "time_us"), ("bandwidth", "bandwidth_gbps"),
                                  ("fabric_bandwidth", "fabric_bandwidth_gbps")):
                want.setdefault(("ep", metric), []).append(row[phase][field])
    return want


def expected_nvlink(doc):
    want = {}
    for node in doc["nodes"]:
        for p in node["pairs"]:
            for test, gbps in p["gbps"].items():
                if gbps is not None:
                    want.setdefault(("nvlink", "bandwidth"), []).append(gbps)
            if p.get("latency_us") is not None:
                want.setdefault(("nvlink", "latency"), []).append(p["latency_us"])
        for t in node["targets"]:
            for field in ("all_to_one_gbps", "one_to_all_gbps"):
                if t.get(field) is not None:
                    want.setdefault(("nvlink", "bandwidth"), []).append(t[field])
    return want


def expected_pairs(doc):
    want = {}
    for p in doc["pairs"]:
        if p["gbps"] is None:
            continue
        want.setdefault(("pairs", "bandwidth"), []).append(p["gbps"])
        slowest = [r for r in p["rails"] if r["local_rank"] == p["slowest_rail"] and r["time_us"] is not None]
        if slowest:
            want.setdefault(("pairs", "time"), []).append(slowest[-1]["time_us"])
    return want


def check_file(opts, path, expect, found):
    with open(path) as f:
        doc = json.load(f)
    want = expect(doc)
    rows = csv_rows(opts, [path], found)
    got = {}
    for r in rows:
        got.setdefault((r["workload"], r["metric"]), []).append(float(r["value"]))
        if r["file"] != path:
            found.append("%s: a row's file is %r" % (path, r["file"]))
    total = sum(len(v) for v in want.values())
    if len(rows) != total or total == 0:
        found.append("%s: %d CSV rows, %d measurements in the JSON" % (path, len(rows), total))
    for key, values in want.items():
        if sorted(got.get(key, [])) != sorted(float(v) for v in values):
            found.append("%s: %s values differ from the JSON's: %s... against %s..." %
                         (path, key, sorted(got.get(key, []))[:3], sorted(values)[:3]))
    print("csv_check: %s: %d rows, as in the JSON" % (os.path.basename(path), len(rows)))
    return rows


def problems(opts):
    found = []
    samples = opts.samples
    collectives = os.path.join(samples, "h200x4-all_reduce-8B-8G-x3.json")
    ep = os.path.join(samples, "h200x4-ep-4096.json")
    rows = check_file(opts, collectives, expected_results, found)
    if rows:
        first = rows[0]
        for column in ("test", "type", "redop", "root", "size", "place", "unit", "better", "wrong", "p99_us"):
            if column not in first:
                found.append("the collectives' CSV has no column %s: %s" % (column, list(first)))
        if first.get("unit") != "us" or first.get("better") != "lower" or not first.get("case", "").startswith("test="):
            found.append("the first row is not a time in us, better lower: %s" % first)
    ep_rows = check_file(opts, ep, expected_results, found)
    if ep_rows and not all(r["routing"] and r["phase"] in ("dispatch", "combine") for r in ep_rows):
        found.append("an EP row lacks its routing or phase: %s" % ep_rows[0])
    nvlink_rows = check_file(opts, opts.nvlink, expected_nvlink, found)
    if nvlink_rows and not any(r["src"] == "1" and r["dst"] == "2" and r["test"] == "ce_write"
                               and "0000:00:07.0" in r["gpus"] for r in nvlink_rows):
        found.append("no nvlink row of GPU 1 -> GPU 2 ce_write with its PCI bus id")
    pairs_rows = check_file(opts, opts.pairs, expected_pairs, found)
    if pairs_rows and not all(r["node_a"] and r["node_b"] for r in pairs_rows):
        found.append("a pairs row lacks its node pair: %s" % pairs_rows[0])

    # Several files: one header, every row; the union of their case parts as columns.
    every = csv_rows(opts, [collectives, ep, opts.nvlink, opts.pairs], found)
    if len(every) != len(rows) + len(ep_rows) + len(nvlink_rows) + len(pairs_rows):
        found.append("four files together: %d rows, not the sum of each" % len(every))

    os.makedirs(opts.workdir, exist_ok=True)
    # A real sweep on the mpi backend, cheap: 8 B to 64 B.
    run = os.path.join(opts.workdir, "sweep.json")
    job = subprocess.run(launcher(opts.mpiexec, 2) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "64",
                                                      "--backend", "mpi", "--no-preflight", "--json", run],
                         capture_output=True, text=True, timeout=120)
    if job.returncode != 0:
        found.append("the mpi sweep: exit %d\n%s" % (job.returncode, job.stderr[-500:]))
    else:
        check_file(opts, run, expected_results, found)

    # -o: atomic, the same bytes as standard output; a folder that does not exist: exit 11.
    out = os.path.join(opts.workdir, "pairs.csv")
    job = subprocess.run([opts.commsweep, "csv", opts.pairs, "-o", out], capture_output=True, text=True)
    stdout = subprocess.run([opts.commsweep, "csv", opts.pairs], capture_output=True).stdout
    if job.returncode != 0 or not os.path.exists(out) or open(out, "rb").read() != stdout:
        found.append("csv -o: exit %d, or its file differs from standard output" % job.returncode)
    missing = os.path.join(opts.workdir, "no-such-folder", "x.csv")
    job = subprocess.run([opts.commsweep, "csv", opts.pairs, "-o", missing], capture_output=True, text=True)
    if job.returncode != 11 or missing not in job.stderr or "output not written" not in job.stderr:
        found.append("csv -o into a missing folder: exit %d (11 expected), %r" % (job.returncode, job.stderr))

    # A malformed file: exit 2, the file and the field named, nothing written.
    with open(opts.pairs) as f:
        doc = json.load(f)
    del doc["pairs"][1]["node_b"]
    bad = os.path.join(opts.workdir, "bad-pairs.json")
    with open(bad, "w") as f:
        json.dump(doc, f)
    not_written = os.path.join(opts.workdir, "bad.csv")
    job = subprocess.run([opts.commsweep, "csv", bad, "-o", not_written], capture_output=True, text=True)
    if job.returncode != 2 or bad not in job.stderr or "pairs[1].node_b" not in job.stderr or os.path.exists(not_written):
        found.append("csv of a malformed file: exit %d (2 expected), %r" % (job.returncode, job.stderr))

    # RFC 4180: a field with a comma is quoted (a file name here).
    comma = os.path.join(opts.workdir, "a,b.json")
    with open(comma, "w") as f:
        json.dump(json.load(open(opts.pairs)), f)
    quoted = csv_rows(opts, [comma], found)
    if not quoted or quoted[0]["file"] != comma:
        found.append("a file name with a comma does not read back: %s" % (quoted[:1],))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--samples", required=True)
    p.add_argument("--nvlink", required=True)
    p.add_argument("--pairs", required=True)
    p.add_argument("--workdir", required=True)
    opts = p.parse_args()
    found = problems(opts)
    for line in found:
        print("csv_check: " + line)
    if not found:
        print("csv_check: every file's measurements are its CSV rows")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
