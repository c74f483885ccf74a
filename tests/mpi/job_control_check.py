#!/usr/bin/env python3
"""Job-control checks of commsweep under mpiexec, each bounded in time:

  mismatch: ranks started with different arguments (MPMD: 2 ranks with one command line, 1
            with another) are refused at start: exit code 2, the odd rank named.
  sigterm:  an endless sweep (-N 0) receives SIGTERM (as Kubernetes sends it at
            activeDeadlineSeconds): the job ends within the bound, the table says it was
            interrupted, and the JSON is written with the rows measured so far and
            summary.complete false.

    job_control_check.py MODE --commsweep BIN --mpiexec MPIEXEC --workdir DIR
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import Failures, launcher, verdict  # noqa: E402

BOUND_S = 60  # the whole job, start to end


def check_mismatch(opts):
    first = launcher(opts.mpiexec, 2)
    cmd = first + [opts.commsweep, "-e", "1K", ":", "-n", "1", opts.commsweep, "-e", "2K"]
    print("running: " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=BOUND_S)
    problems = []
    if p.returncode != 2:
        problems.append("exit code %d, expected 2" % p.returncode)
    if "different arguments" not in p.stderr or "rank(s) 2 " not in p.stderr:
        problems.append("stderr does not name rank 2 as started differently")
    if "# Collective test starting" in p.stdout:
        problems.append("a sweep started despite the mismatch")
    return problems, p.stdout, p.stderr


def check_sigterm(opts):
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = launcher(opts.mpiexec, 3) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "64K",
                                       "-N", "0", "--json", results]
    print("running: " + " ".join(cmd), flush=True)
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(5)  # several cycles measured
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return ["still running %d s after SIGTERM" % BOUND_S], out, err
    elapsed = time.monotonic() - start
    print("ended %.1f s after start (SIGTERM at 5 s), exit code %d" % (elapsed, p.returncode))
    problems = []
    if p.returncode == 0:
        problems.append("exit code 0 for an interrupted run")
    if "interrupted by SIGTERM" not in out:
        problems.append("the table does not say the run was interrupted")
    try:
        with open(results) as f:
            doc = json.load(f)
        if doc["summary"]["complete"] is not False or doc["summary"]["ok"] is not False:
            problems.append("summary.complete / ok not false: %s" % doc["summary"])
        if not doc["rows"]:
            problems.append("no rows kept from before the signal")
        if any(r["out_of_place"]["wrong"] != 0 for r in doc["rows"]):
            problems.append("a kept row has wrong elements")
    except (OSError, ValueError, KeyError) as e:
        problems.append("results JSON missing or unreadable: %s" % e)
    return problems, out, err


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["mismatch", "sigterm"])
    parser.add_argument("--commsweep", required=True)
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--workdir", required=True)
    opts = parser.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    problems, out, err = (check_mismatch if opts.mode == "mismatch" else check_sigterm)(opts)
    fail = Failures()
    for p in problems:
        fail.check(False, p)
    return verdict(fail, opts.mode, out, err)


if __name__ == "__main__":
    sys.exit(main())
