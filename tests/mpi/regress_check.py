#!/usr/bin/env python3
"""`commsweep compare` on results written by real runs: two sweeps under mpiexec -n 4 on the mpi
backend make a baseline; each of them passes against it; a doctored third (one size 1000 times
slower) fails with exit 9 (regression) and its line in the verdict table; a run with a planted
wrong element (a real one: --fault wrong-element) exits 8 (wrong data), and so does compare of
it. Issue 24: against a baseline lacking its 1M entries, the 1M rows are NOT_JUDGED (counted
apart, exit 0); a run of 2 ranks against the shipped 4 x H200 NVLink baseline is refused (exit 2,
one line per differing property), and with --allow-mismatch judged (exit 9), the differences
said before the verdicts.

    regress_check.py --commsweep BIN --mpiexec MPIEXEC --workdir DIR

The baseline's noise cap is 90% and every size is judged on busbw (--small-bytes 0): runs on a
loaded, oversubscribed CI machine differ by several times, so the genuine runs must not fail on
noise, while a 99.9% drop must. Each rank is its own "GPU" here, all on one host.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "regress"))
from commsweep_check import launcher  # noqa: E402
from regress_cli import Check, fresh_dir, load, run, save, slower, table_line  # noqa: E402

SIZES = ["-b", "64K", "-e", "1M"]
QUICK = ["--backend", "mpi", "-c", "1", "-w", "1", "-n", "5", "-N", "2"]


SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "baselines",
                       "h200x4-nvlink.json")
# What differs between 2 mpi ranks on host memory and the shipped baseline's 4 x H200 runs.
DIFFERS = ["backend: run mpi, baseline nccl", "ranks: run 2, baseline 4", "GPUs per node: run 0, baseline 4",
           "shape: run cpux2, baseline h200x4"]


def mpirun(a, args, timeout=120, np=4):
    return run(launcher(a.mpiexec, np) + [a.commsweep] + args, timeout=timeout)


def check_not_judged(a, c, p):
    """A baseline without the 1M entries: the run's 1M rows are not judged, never PASS, exit 0."""
    base = load(p("base.json"))
    base["entries"] = [e for e in base["entries"] if e.get("size_bytes") != 1 << 20]
    save(base, p("base_without_1M.json"))
    rc, out, err = run([a.commsweep, "compare", p("run1.json"), "--baseline", p("base_without_1M.json")])
    print(out)
    c.expect(rc == 0, f"against a baseline without 1M: exit 0 (got {rc}) {err.strip()}")
    for test in ("all_reduce", "broadcast"):
        line = table_line(out, "NOT_JUDGED", test, "1M")
        c.expect(line is not None and line.endswith("  not judged: not in the baseline"), f"{test} 1M not judged: {line!r}")
    c.expect(table_line(out, "PASS", "1M") is None, "no 1M row is PASS")
    c.expect("; 4 not judged (not in the baseline); wrong elements: 0\n" in out, "the counts say 4 not judged")


def check_shipped_baseline(a, c, p):
    """2 mpi ranks against the shipped 4 x H200 NVLink baseline: refused, then --allow-mismatch."""
    rc, out, err = mpirun(a, ["all_reduce"] + SIZES + QUICK + ["--json", p("np2.json")], np=2)
    c.expect(rc == 0, f"the 2-rank run: exit {rc} {err.strip()[-300:]}")
    shipped = os.path.normpath(SHIPPED)
    rc, out, err = run([a.commsweep, "compare", p("np2.json"), "--baseline", shipped])
    want = [f"commsweep compare: {p('np2.json')} did not measure what the baseline {shipped} did "
            "(give --allow-mismatch to judge it anyway):"] + ["  " + d for d in DIFFERS]
    c.expect(rc == 2 and err.splitlines() == want and out == "", f"refused, exit 2 (got {rc}): {err!r} {out[:200]!r}")
    rc, out, err = run([a.commsweep, "compare", p("np2.json"), "--baseline", shipped, "--allow-mismatch"])
    lines = out.splitlines()
    c.expect(rc == 9 and lines[1:3] == ["setup differs, judged anyway (--allow-mismatch): " + "; ".join(DIFFERS),
                                        "setup not checked: mode (the results do not record it: give --mode nvlink "
                                        "to check it)"], f"--allow-mismatch: exit 9 (got {rc}), said first: {lines[:3]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    w = fresh_dir(a.workdir)
    p = lambda name: os.path.join(w, name)
    c = Check("regress_check")
    for n in (1, 2):
        rc, out, err = mpirun(a, ["all_reduce,broadcast"] + SIZES + QUICK + ["--json", p(f"run{n}.json")])
        c.expect(rc == 0 and os.path.exists(p(f"run{n}.json")), f"run {n} under mpiexec -n 4: exit {rc} {err.strip()[-300:]}")
    if c.failures:
        c.finish()
    rc, out, err = run([a.commsweep, "baseline", p("run1.json"), p("run2.json"), "-o", p("base.json"),
                        "--mode", "tcp", "--max-noise-pct", "90", "--small-bytes", "0"])
    c.expect(rc == 0 and "cpux4" in out, f"baseline from the two runs: {out.strip()} {err.strip()}")
    for n in (1, 2):
        rc, out, err = run([a.commsweep, "compare", p(f"run{n}.json"), "--baseline", p("base.json")])
        print(out)
        c.expect(rc == 0, f"run {n} against the baseline: exit 0 (got {rc}) {err.strip()}")
        c.expect(table_line(out, "all_reduce", "1M") is not None, f"run {n}: the table has all_reduce 1M")

    save(slower(load(p("run2.json")), 256 * 1024, 1000), p("doctored.json"))
    rc, out, err = run([a.commsweep, "compare", p("doctored.json"), "--baseline", p("base.json"), "--markdown", p("doctored.md")])
    print(out)
    c.expect(rc == 9, f"doctored (256K 1000 times slower): exit 9 (got {rc}) {err.strip()}")
    line = table_line(out, "FAIL", "all_reduce", "256K")
    c.expect(line is not None and "% lower (fail band 10.0%, beyond the noise of" in line, f"the verdict line: {line!r}")
    c.expect(table_line(out, "FAIL", "all_reduce", "512K") is None, "512K is not failed")
    c.expect("exit 9: regression" in out, "the table ends with exit 9: regression")

    rc, out, err = mpirun(a, ["all_reduce,broadcast"] + SIZES + QUICK + ["--fault", "wrong-element:1", "--json", p("wrong.json")])
    c.expect(rc == 8 and os.path.exists(p("wrong.json")), f"a run with a wrong element: sweep exit 8 and a file (got {rc})")
    rc, out, err = run([a.commsweep, "compare", p("wrong.json"), "--baseline", p("base.json")])
    print(out)
    c.expect(rc == 8, f"compare on the run with wrong elements: exit 8 (got {rc})")
    c.expect("wrong elements" in out, "the table says wrong elements")
    check_not_judged(a, c, p)
    check_shipped_baseline(a, c, p)
    c.finish()


if __name__ == "__main__":
    main()
