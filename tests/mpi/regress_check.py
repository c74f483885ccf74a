#!/usr/bin/env python3
"""`commsweep compare` on results written by real runs: two sweeps under mpiexec -n 4 on the mpi
backend make a baseline; each of them passes against it; a doctored third (one size 1000 times
slower) fails with exit 1 and its line in the verdict table; a run with a planted wrong element
(a real one: --fault wrong-element) fails with exit 3.

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


def mpirun(a, args, timeout=120):
    return run(launcher(a.mpiexec, 4) + [a.commsweep] + args, timeout=timeout)


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
    c.expect(rc == 1, f"doctored (256K 1000 times slower): exit 1 (got {rc}) {err.strip()}")
    line = table_line(out, "FAIL", "all_reduce", "256K")
    c.expect(line is not None and "% lower (fail band 10.0%, beyond the noise of" in line, f"the verdict line: {line!r}")
    c.expect(table_line(out, "FAIL", "all_reduce", "512K") is None, "512K is not failed")
    c.expect("exit 1: regression" in out, "the table ends with exit 1: regression")

    rc, out, err = mpirun(a, ["all_reduce,broadcast"] + SIZES + QUICK + ["--fault", "wrong-element:1", "--json", p("wrong.json")])
    c.expect(rc == 1 and os.path.exists(p("wrong.json")), f"a run with a wrong element: sweep exit 1 and a file (got {rc})")
    rc, out, err = run([a.commsweep, "compare", p("wrong.json"), "--baseline", p("base.json")])
    print(out)
    c.expect(rc == 3, f"compare on the run with wrong elements: exit 3 (got {rc})")
    c.expect("wrong elements" in out, "the table says wrong elements")
    c.finish()


if __name__ == "__main__":
    main()
