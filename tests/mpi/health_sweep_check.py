#!/usr/bin/env python3
"""A health FAIL during a sweep is no pass (issue 43): exit 6, the JSON's summary not ok and
naming the finding; a WARN alone changes nothing.

    health_sweep_check.py --commsweep BIN --mpiexec MPIEXEC --fixtures tests/fixtures/health \
        --results-schema SCHEMA --workdir DIR

A real `all_reduce` sweep of 2 ranks on the mpi backend whose node reads a copy of the healthy
2-NIC IB fixture tree (COMMSWEEP_SYSFS_ROOT). Once the sweep's table is printed (the before
snapshot long taken), the checker changes the tree and then creates the file the reader waits
for before its after snapshot (COMMSWEEP_HEALTH_AFTER_WAITS_FOR):
  fail  the tree becomes ib_flapped/after (mlx5_1 port 1: link_downed +1, state ACTIVE -> DOWN,
        symbol_error +412, link_error_recovery +3): exit 6; the block's "2 FAIL, 2 WARN" summary
        and its FAIL line; the JSON valid, summary.ok false, summary.health_fail naming mlx5_1
        port 1's link_downed and state; every row there, #wrong 0.
  warn  only the two counters that are WARNs rise (symbol_error, link_error_recovery): exit 0,
        summary.ok true, no health_fail.
  preflight  a FAIL of the brief preflight before a sweep is one too: the same sweep (live /sys,
        the preflight on) in a mount namespace whose /dev/shm is a 64 MiB tmpfs (Docker's
        default; host.shm FAILs): exit 6, summary.ok false, health_fail naming host.shm. Needs
        root and unshare(1); said and skipped otherwise.
Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from commsweep_check import Failures, launcher, start_job, finish_job, verdict  # noqa: E402
from results_json import validate  # noqa: E402

HEALTH_FAIL_EXIT = 6  # docs/failures.md
BOUND_S = 90  # the sweep itself takes a second or two
PORT = "sys/class/infiniband/mlx5_1/ports/1"
# What differs between ib_flapped/before and after (all of it mlx5_1 port 1), and the part of
# it that is only WARNs.
FLAPPED = ("counters/link_downed", "counters/link_error_recovery", "counters/symbol_error", "state", "phys_state")
WARN_ONLY = ("counters/symbol_error", "counters/link_error_recovery")


def run_case(opts, fail, name, change):
    """Runs the sweep on a fresh tree, CHANGE(tree) once its table is printed; (rc, out, doc)."""
    work = os.path.join(opts.workdir, name)
    os.makedirs(work)
    tree = os.path.join(work, "tree")
    shutil.copytree(os.path.join(opts.fixtures, "ib_flapped", "before"), tree, symlinks=True)
    go = os.path.join(work, "changed")
    results = os.path.join(work, "r.json")
    os.environ.update({"COMMSWEEP_SYSFS_ROOT": tree, "COMMSWEEP_HEALTH_AFTER_WAITS_FOR": go})
    cmd = launcher(opts.mpiexec, 2) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "32K", "-n", "2", "-w", "1", "--backend", "mpi",
            "--no-preflight", "--json", results]
    until = time.monotonic() + BOUND_S
    proc, files = start_job(cmd, work)
    changed = False
    while time.monotonic() < until and proc.poll() is None:
        with open(os.path.join(work, "stdout.txt")) as f:
            if "# Avg bus bandwidth" in f.read():
                change(tree)
                open(go, "w").close()
                changed = True
                break
        time.sleep(0.05)
    rc, out, err = finish_job(proc, files, work, until, fail.messages, "%s: the job outlived %d s" % (name, BOUND_S))
    fail.check(changed, "%s: the table's footer was never printed: the tree was not changed" % name)
    try:
        with open(results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail.check(False, "%s: %s: %s" % (name, results, e))
        doc = {}
    with open(opts.results_schema) as f:
        schema = json.load(f)
    errors = validate(doc, schema, schema)
    fail.check(not errors, "%s: the results JSON does not validate: %s" % (name, errors[:5]))
    return rc, out, err, doc


def check_preflight_fail(opts, fail):
    """A brief preflight FAIL (host.shm: /dev/shm of 64 MiB) exits 6 and is named in the JSON."""
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        print("preflight: skipped: needs root and unshare(1) to mount a 64 MiB /dev/shm of its own")
        return
    work = os.path.join(opts.workdir, "preflight")
    os.makedirs(work)
    results = os.path.join(work, "r.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMMSWEEP_")}
    job = " ".join(launcher(opts.mpiexec, 2) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "1K", "-n", "2", "-w", "1",
                                                  "--backend", "mpi", "--json", results])
    cmd = [unshare, "-m", "sh", "-c", "mount -t tmpfs -o size=64m tmpfs /dev/shm && exec " + job]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=BOUND_S, env=env, cwd=work)
    except subprocess.TimeoutExpired:
        fail.check(False, "preflight: the job outlived %d s" % BOUND_S)
        return
    if p.returncode != 0 and "mount" in p.stderr and not os.path.exists(results):
        print("preflight: skipped: no tmpfs could be mounted here: %s" % p.stderr.strip()[-200:])
        return
    fail.check(p.returncode == HEALTH_FAIL_EXIT, "preflight: exit %s, expected %d: %s" % (p.returncode, HEALTH_FAIL_EXIT, p.stderr[-300:]))
    fail.check(any(l.startswith("# ") and " host.shm " in l and " FAIL " in l for l in p.stdout.splitlines()),
               "preflight: no brief FAIL row for host.shm")
    fail.check("FAIL above" in p.stdout and "(exit 6, a health FAIL)" in p.stdout, "preflight: the ending does not say why it exits 6")
    try:
        with open(results) as f:
            summary = json.load(f).get("summary", {})
    except (OSError, ValueError) as e:
        fail.check(False, "preflight: %s: %s" % (results, e))
        return
    named = summary.get("health_fail", [])
    fail.check(summary.get("ok") is False and any(" preflight host.shm: /dev/shm is 64 MiB" in l for l in named),
               "preflight: summary %s" % summary)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--commsweep", "--mpiexec", "--fixtures", "--results-schema", "--workdir"):
        ap.add_argument(flag, required=True)
    opts = ap.parse_args()
    after = os.path.join(opts.fixtures, "ib_flapped", "after")

    def changes(names):
        def change(tree):
            for name in names:
                shutil.copyfile(os.path.join(after, PORT, name), os.path.join(tree, PORT, name))
        return change

    shutil.rmtree(opts.workdir, ignore_errors=True)
    os.makedirs(opts.workdir)
    fail = Failures()

    rc, out, err, doc = run_case(opts, fail, "fail", changes(FLAPPED))
    summary = doc.get("summary", {})
    fail.check(rc == HEALTH_FAIL_EXIT, "fail: exit %s, expected %d (a health FAIL): %s" % (rc, HEALTH_FAIL_EXIT, err[-300:]))
    fail.check(any(l.startswith("# Health: ") and ": 2 FAIL, 2 WARN on " in l for l in out.splitlines()),
               "fail: no summary line with its 2 FAIL and 2 WARN")
    fail.check(any(l.startswith("#   FAIL ") and "RDMA: mlx5_1 port 1 state ACTIVE -> DOWN" in l for l in out.splitlines()),
               "fail: no FAIL line for mlx5_1 port 1")
    fail.check(summary.get("ok") is False, "fail: summary.ok is %r, not false" % summary.get("ok"))
    named = summary.get("health_fail", [])
    fail.check(any("mlx5_1 port 1: link_downed +1" in l for l in named) and any("mlx5_1 port 1: state " in l for l in named)
               and len(named) == 2, "fail: summary.health_fail does not name the port's link_downed and state: %s" % named)
    fail.check(summary.get("wrong_total") == 0 and summary.get("complete") is True and len(doc.get("rows", [])) == 13,
               "fail: the rows are not all there and right: %s, %d rows" % (summary, len(doc.get("rows", []))))

    rc, out, err, doc = run_case(opts, fail, "warn", changes(WARN_ONLY))
    summary = doc.get("summary", {})
    fail.check(rc == 0, "warn: exit %s, expected 0 (a WARN is no failure): %s" % (rc, err[-300:]))
    fail.check(any(l.startswith("# Health: ") and ": 0 FAIL, 2 WARN on " in l for l in out.splitlines()),
               "warn: no summary line with its 2 WARN")
    fail.check(summary.get("ok") is True and "health_fail" not in summary, "warn: summary %s" % summary)
    check_preflight_fail(opts, fail)
    return verdict(fail, "a health FAIL during a sweep, or its brief preflight's, exits 6, named in the JSON; a WARN exits 0",
                   out, err)


if __name__ == "__main__":
    sys.exit(main())
