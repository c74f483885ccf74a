#!/usr/bin/env python3
"""Issue 45 on the mpi backend, 2 ranks: the expected figures judged in a real run. No shipped
figure describes the host's MPI (the mpi backend has none), so each run gives its own file with
`backend: mpi` and `gpu: any`, as a site would for its own hardware: honest figures for a test of
the judge, not of the machine.

- a figure far below what loopback MPI moves: every row's halves have expected and of_expected,
  --show-expected prints them, no finding, exit 0; without a file the rows' expected is null and
  nothing is said;
- a figure no loopback reaches, WARN floor only (fail_below 0): a WARN line per row, kept in the
  summary, exit 0 (a WARN never changes the exit code);
- the same with a FAIL floor and --fault slow:1 (rank 1 twice as long): a FAIL line per row naming
  the slowest rank and its host, the summary not ok, exit 10 (slow); rank 1 named in most rows;
- ep: an entry of its dispatch time no exchange reaches: each row's dispatch has expected and
  of_expected, its combine null (no entry), a FAIL line per row naming its slowest rank and host,
  exit 10 through the same policy; with --show-expected each row's dispatch expected time and share
  after the table's 15 columns, combine's "-".

    expected_check.py --commsweep BIN --mpiexec MPIEXEC --schema SCHEMA --workdir DIR
"""
import argparse
import json
import os
import subprocess
import sys

from commsweep_check import launcher
from results_json import validate

RANKS = 2
BASE = ["all_reduce", "-b", "64K", "-e", "1M", "-f", "4", "--backend", "mpi", "-w", "1", "-n", "5", "-c", "1",
        "--no-preflight"]
ENTRY = """schema: commsweep.expected/1
entries:
  - id: ci-mpi-loopback
    gpu: any
    gpus: 2
    fabric: any
    nvls: any
    backend: mpi
    workload: all_reduce
    metric: busbw_gbps
    busbw_gbps:
      64KiB: {small}
      1MiB: {large}
    warn_below: 0.9
    fail_below: {fail}
    source:
      kind: published
      cite: a figure of tests/mpi/expected_check.py for the judge's own test, not a measurement
      url: tests/mpi/expected_check.py
"""
EP = ["ep", "--backend", "mpi", "--tokens", "16,32", "--hidden", "256", "--topk", "2", "--experts", "4", "-w", "1",
      "-n", "3", "--no-preflight"]
EP_ENTRY = """schema: commsweep.expected/1
entries:
  - id: ci-mpi-ep-dispatch
    gpu: any
    gpus: 2
    fabric: any
    nvls: any
    backend: mpi
    workload: ep
    metric: time_us
    case:
      phase: dispatch
      hidden: 256
    time_us:
      16: 0.001
    warn_below: 0.9
    fail_below: 0.5
    source:
      kind: published
      cite: a figure of tests/mpi/expected_check.py for the judge's own test, not a measurement
      url: tests/mpi/expected_check.py
"""


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--commsweep", "--mpiexec", "--schema", "--workdir"):
        ap.add_argument(flag, required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    with open(a.schema) as f:
        schema = json.load(f)
    failures = []

    def expect(ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    def run(name, small, large, fail, extra=(), rc=0):
        path = os.path.join(a.workdir, name + ".json")
        cmd = launcher(a.mpiexec, RANKS) + [a.commsweep] + BASE + list(extra) + ["--json", path]
        if small is not None:
            expected = os.path.join(a.workdir, name + ".yaml")
            with open(expected, "w") as f:
                f.write(ENTRY.format(small=small, large=large, fail=fail))
            cmd += ["--expected", expected]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
        with open(os.path.join(a.workdir, name + ".stdout.txt"), "w") as f:
            f.write(p.stdout)
        expect(p.returncode == rc, f"{name}: exit {p.returncode}, {rc} expected {p.stderr.strip()[-300:]}")
        with open(path) as f:
            doc = json.load(f)
        errors = validate(doc, schema, schema)
        expect(not errors, f"{name}: follows the schema {errors[:3]}")
        return doc, p.stdout

    # No file: the mpi backend has no expectation, said nowhere; every half's expected is null.
    doc, out = run("none", None, None, None)
    halves = [r[h] for r in doc["rows"] for h in ("out_of_place", "in_place")]
    expect(len(halves) == 6 and all(t["expected"] is None and t["of_expected"] is None for t in halves),
           "no file: 3 rows, every half's expected and of_expected null")
    expect("# expected" not in out and "expected_findings" not in doc["summary"], "no file: nothing said of expectations")

    # Healthy: a figure loopback MPI beats everywhere.
    doc, out = run("healthy", 1e-6, 1e-4, 0.5, ["--show-expected"])
    halves = [r[h] for r in doc["rows"] for h in ("out_of_place", "in_place")]
    expect(len(halves) == 6 and all(t["expected"] > 0 and t["of_expected"] > 1 for t in halves),
           "healthy: every half has expected and of_expected above 1")
    expect(all(abs(t["of_expected"] - t["busbw_gbps"] / t["expected"]) < 1e-9 for t in halves),
           "healthy: of_expected is busbw / expected")
    expect("# expected busbw for 2 ranks without a GPU on 1 node, mpi backend: all_reduce (ci-mpi-loopback)" in out,
           "healthy: the entry that applies is said once")
    rows = [l for l in out.splitlines() if l and not l.startswith("#")]
    expect(len(rows) == 3 and all(len(l.split()) == 13 + 3 for l in rows),
           "--show-expected: expected, oop/exp, ip/exp after nccl-tests' 13 columns")
    expect("expected  oop/exp   ip/exp" in out, "--show-expected: the header names the columns")
    expect("expected_findings" not in doc["summary"] and doc["summary"]["ok"], "healthy: no finding, ok")

    # WARN only: every row below 0.9 of a figure no loopback reaches, no FAIL floor: exit 0.
    doc, out = run("warn", 1e6, 1e6, 0)
    warns = [l for l in out.splitlines() if l.startswith("# WARN expected: all_reduce")]
    found = doc["summary"].get("expected_findings", [])
    expect(len(warns) == 3 and len(found) == 3 and all(f["severity"] == "WARN" for f in found),
           f"warn: one WARN line a row, kept in the summary ({len(warns)} lines, {len(found)} kept)")
    expect(doc["summary"]["ok"], "warn: a WARN leaves the run ok (exit 0)")

    # FAIL with --fault slow:1: exit 10, each finding naming the half's slowest rank and its host.
    doc, out = run("fail", 1e6, 1e6, 0.5, ["--fault", "slow:1"], rc=10)
    found = doc["summary"].get("expected_findings", [])
    fails = [l for l in out.splitlines() if l.startswith("# FAIL expected: all_reduce")]
    expect(len(fails) == 3 and len(found) == 3 and all(f["severity"] == "FAIL" for f in found),
           f"fail: one FAIL line a row, kept in the summary ({len(fails)} lines, {len(found)} kept)")
    hosts = doc["provenance"]["hosts"]
    for f in found:
        row = next(r for r in doc["rows"] if r["size_bytes"] == f["size_bytes"])
        expect(f["rank"] == row[f["half"]]["slowest_rank"] and f["host"] == hosts[f["rank"]] and
               f["text"].endswith(f"slowest rank {f['rank']} on {f['host']}"),
               f"fail: {f['size_bytes']} B names its half's slowest rank and host: {f['text']}")
    expect(sum(f["rank"] == 1 for f in found) * 2 > len(found), "fail: the slowed rank 1 named in most rows")
    expect(not doc["summary"]["ok"], "fail: the summary is not ok")

    # ep: the same judge over its phases (an entry of the dispatch's time, 1 ns: none reaches it).
    ep_yaml = os.path.join(a.workdir, "ep.yaml")
    with open(ep_yaml, "w") as f:
        f.write(EP_ENTRY)
    ep_json = os.path.join(a.workdir, "ep.json")
    p = subprocess.run(launcher(a.mpiexec, RANKS) + [a.commsweep] + EP + ["--expected", ep_yaml, "--show-expected",
                                                                      "--json", ep_json],
                       capture_output=True, text=True, timeout=150)
    with open(os.path.join(a.workdir, "ep.stdout.txt"), "w") as f:
        f.write(p.stdout)
    expect(p.returncode == 10, f"ep: exit {p.returncode}, 10 expected {p.stderr.strip()[-300:]}")
    with open(ep_json) as f:
        doc = json.load(f)
    errors = validate(doc, schema, schema)
    expect(not errors, f"ep: follows the schema {errors[:3]}")
    expect("# expected figures for 2 ranks without a GPU on 1 node, mpi backend: ep (ci-mpi-ep-dispatch)" in p.stdout,
           "ep: the entry that applies is said once")
    rows = doc["ep_rows"]
    expect(len(rows) == 2 and all(r["dispatch"]["expected"]["metric"] == "time_us" and
                                  abs(r["dispatch"]["of_expected"] - r["dispatch"]["expected"]["value"] / r["dispatch"]["time_us"]) < 1e-9 and
                                  r["combine"]["expected"] is None and r["combine"]["of_expected"] is None
                                  for r in rows),
           "ep: each dispatch has expected and of_expected (expected / time), each combine null")
    # --show-expected: each phase's expected time and share after the back-to-back columns, "-" for combine.
    expect("pair  spread  expected  of_exp  expected  of_exp" in p.stdout, "ep --show-expected: the header names the columns")
    table = [l.split() for l in p.stdout.splitlines() if l and not l.startswith("#")]
    expect(len(table) == 2 and all(len(r) == 19 and r[-2:] == ["-", "-"] and float(r[-3]) < 0.01 for r in table),
           f"ep --show-expected: 15 columns then dispatch's expected and share (1 ns: ~0), combine's '-': {table}")
    found = doc["summary"].get("expected_findings", [])
    fails = [l for l in p.stdout.splitlines() if l.startswith("# FAIL expected: ep ")]
    expect(len(fails) == 2 and len(found) == 2 and all(f["phase"] == "dispatch" for f in found),
           f"ep: one FAIL line a row's dispatch, kept in the summary ({len(fails)} lines, {len(found)} kept)")
    hosts = doc["provenance"]["hosts"]
    expect(all(f["host"] == hosts[f["rank"]] and f["text"].endswith(f"slowest rank {f['rank']} on {f['host']}")
               for f in found), "ep: each finding names its slowest rank and host")
    expect(not doc["summary"]["ok"], "ep: the summary is not ok")

    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
