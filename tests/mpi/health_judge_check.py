#!/usr/bin/env python3
"""`commsweep health --judge` on the files each command writes, and on the NVLink captures.

    health_judge_check.py --commsweep BIN --mpiexec MPIEXEC --fixtures tests/fixtures/health \
        --suites suites --workdir DIR

1. Real runs on the mpi backend, each node reading the healthy 2-NIC IB fixture tree
   (COMMSWEEP_SYSFS_ROOT): a sweep (`all_reduce`, 2 ranks), `ep` (2 ranks), `suite` (2 ranks) and
   `pairs` (2 emulated nodes of 1 rank), each writing its results or pairs file; `--judge` of each
   exits 0 with a one-line block ending ": OK" (the nodes read, their ports and PCIe links).
2. A live `commsweep health --duration` whose tree is changed as a flapping cable changes it,
   written with --json (exit 6, its FAIL line); `--judge` of that file gives the same FAIL line and
   exit 6; with a thresholds file that makes the port's rules information, exit 0 and no line;
   under `mpiexec -n 1` as without it.
3. The NVLink captures (tests/fixtures/health/nvlink): every healthy one exits 0 with at most 3
   lines per node; each planted one names its GPU and link, counter, rate and limit in one line,
   exit 6 for a FAIL and 0 for a WARN.
Standard library only; every command bounded in time.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from commsweep_check import Failures, launcher, run, verdict  # noqa: E402
from health_check import plant  # noqa: E402  (what a flapping cable leaves in sysfs)

BOUND_S = 120
FAIL_EXIT = 6
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def block(out):
    return [l for l in out.splitlines() if l.startswith("#")]


def judge(opts, fail, name, path, want_rc, *extra, mpi=False):
    """Runs health --judge PATH; checks the exit code; returns its '#' lines."""
    cmd = ([] if not mpi else launcher(opts.mpiexec, 1)) + [opts.commsweep, "health", "--judge", path] + list(extra)
    work = os.path.join(opts.workdir, "judge-" + name)
    os.makedirs(work, exist_ok=True)
    rc, out, err, _, timed_out = run(cmd, BOUND_S, work)
    fail.check(not timed_out, "%s: --judge outlived %d s" % (name, BOUND_S))
    fail.check(rc == want_rc, "%s: --judge %s exited %s, expected %d: %s" % (name, path, rc, want_rc, err.strip()[-300:]))
    return block(out)


def measured_files(opts, fail, tree):
    """The results and pairs files of real runs whose nodes read TREE."""
    w = opts.workdir
    files = {"sweep": os.path.join(w, "sweep.json"), "ep": os.path.join(w, "ep.json"),
             "suite": os.path.join(w, "suite.json"), "pairs": os.path.join(w, "pairs.json")}
    runs = {
        "sweep": launcher(opts.mpiexec, 2) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "1K", "--backend", "mpi",
                                              "--no-preflight", "--json", files["sweep"]],
        "ep": launcher(opts.mpiexec, 2) + [opts.commsweep, "ep", "--tokens", "4", "--hidden", "128", "--topk", "2",
                                           "--experts", "4", "--backend", "mpi", "--no-preflight", "--json", files["ep"]],
        "suite": launcher(opts.mpiexec, 2) + [opts.commsweep, "suite", os.path.join(opts.suites, "ci.yaml"),
                                              "--backend", "mpi", "--no-preflight", "--json", files["suite"]],
        "pairs": launcher(opts.mpiexec, 2) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), opts.commsweep,
                                              "pairs", "--backend", "mpi", "-s", "64K", "-n", "2", "-w", "1",
                                              "--no-preflight", "--json", files["pairs"]],
    }
    for name, cmd in runs.items():
        work = os.path.join(w, "run-" + name)
        os.makedirs(work, exist_ok=True)
        env_cmd = ["env", "COMMSWEEP_SYSFS_ROOT=" + tree, "COMMSWEEP_RANKS_PER_NODE=1"] + cmd
        rc, out, err, _, timed_out = run(env_cmd, BOUND_S, work)
        fail.check(rc == 0 and not timed_out, "%s run: exit %s: %s" % (name, rc, err.strip()[-300:]))
    return files


def check_measured(opts, fail, files):
    for name, path in files.items():
        if not os.path.exists(path):
            fail.check(False, "%s: no file %s to judge" % (name, path))
            continue
        lines = judge(opts, fail, name, path, 0)
        fail.check(len(lines) >= 1 and lines[0].startswith("# Health: ") and lines[0].endswith(": OK")
                   and " RDMA ports active" in lines[0] and " PCIe links at full width" in lines[0],
                   "%s: --judge's summary line: %s" % (name, lines[:1]))


def check_live_health(opts, fail):
    tree = os.path.join(opts.workdir, "flapping")
    shutil.copytree(os.path.join(opts.fixtures, "ib_flapped", "before"), tree, symlinks=True)
    go = os.path.join(opts.workdir, "planted")
    stored = os.path.join(opts.workdir, "health-flapped.json")
    work = os.path.join(opts.workdir, "live")
    os.makedirs(work, exist_ok=True)
    # The reader waits for GO before its after snapshot (COMMSWEEP_HEALTH_AFTER_WAITS_FOR):
    # plant first, then let it read.
    cmd = ["env", "COMMSWEEP_HEALTH_AFTER_WAITS_FOR=" + go, opts.commsweep, "health", "--no-gpus", "--sysfs-root",
           tree, "--duration", "0.2", "--json", stored]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(1.0)  # the before snapshot is taken at once; --duration is 0.2 s
    plant(tree)
    open(go, "w").close()
    out, err = proc.communicate(timeout=BOUND_S)
    fail.check(proc.returncode == FAIL_EXIT, "live health: exit %s, expected 6: %s" % (proc.returncode, err[-300:]))
    live = [l for l in block(out) if l.startswith("#   FAIL ")]
    fail.check(len(live) == 1 and "RDMA: mlx5_1 port 1 state ACTIVE -> DOWN" in live[0], "live health's FAIL line: %s" % live)
    judged = [l for l in judge(opts, fail, "flapped", stored, FAIL_EXIT) if l.startswith("#   FAIL ")]
    fail.check(judged == live, "--judge's FAIL line differs from the live run's: %s vs %s" % (judged, live))
    on_mpi = [l for l in judge(opts, fail, "flapped-np1", stored, FAIL_EXIT, mpi=True) if l.startswith("#   FAIL ")]
    fail.check(on_mpi == live, "--judge under mpiexec -n 1 differs: %s" % on_mpi)
    quiet = os.path.join(opts.workdir, "quiet.yaml")
    with open(quiet, "w") as f:
        f.write("schema: commsweep.health-thresholds/1\nrules:\n")
        for rule in ("port_left_active", "link_downed", "link_error_recovery", "symbol_error"):
            f.write("  %s:\n    severity: info\n" % rule)
    lines = judge(opts, fail, "flapped-quiet", stored, 0, "--health-thresholds", quiet)
    fail.check(len(lines) >= 1 and lines[0].endswith(": OK") and not any(l.startswith("#   FAIL") or l.startswith("#   WARN")
                                                                       for l in lines),
               "--judge with the port's rules as information: %s" % lines)


def check_captures(opts, fail):
    folder = os.path.join(opts.fixtures, "nvlink")
    for name in sorted(os.listdir(os.path.join(folder, "healthy"))):
        if not name.endswith(".json"):
            continue
        path = os.path.join(folder, "healthy", name)
        with open(path) as f:
            doc = json.load(f)
        nodes = len((doc["health"] if "schema" in doc else doc)["nodes"])
        lines = judge(opts, fail, "healthy-" + name, path, 0)
        fail.check(lines and lines[0].endswith(": OK") and len(lines) <= 3 * nodes,
                   "%s: more than 3 lines a node, or not OK: %s" % (name, lines))
    with open(os.path.join(folder, "planted", "expected.json")) as f:
        expected = json.load(f)
    for name, want in expected["files"].items():
        rc = FAIL_EXIT if want["severity"] == "FAIL" else 0
        lines = judge(opts, fail, "planted-" + name, os.path.join(folder, "planted", name), rc)
        findings = [l for l in lines if l.startswith("#   FAIL ") or l.startswith("#   WARN ")]
        component = want["component"].replace(" NVLink ", " link ")
        fail.check(len(findings) == 1 and findings[0].startswith("#   %s %s " % (want["severity"], expected["host"]))
                   and (component + " " + want["counter"] + " ") in findings[0]
                   and all(s in findings[0] for s in want["says"]),
                   "%s: the finding line: %s" % (name, findings))


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--commsweep", "--mpiexec", "--fixtures", "--suites", "--workdir"):
        ap.add_argument(flag, required=True)
    opts = ap.parse_args()
    shutil.rmtree(opts.workdir, ignore_errors=True)
    os.makedirs(opts.workdir)
    fail = Failures()
    tree = os.path.join(opts.workdir, "tree")
    shutil.copytree(os.path.join(opts.fixtures, "ib_flapped", "before"), tree, symlinks=True)
    check_measured(opts, fail, measured_files(opts, fail, tree))
    check_live_health(opts, fail)
    check_captures(opts, fail)
    return verdict(fail, "health --judge on a sweep's, ep's, suite's and pairs' files, a live health JSON, and "
                         "the NVLink captures", "", "")


if __name__ == "__main__":
    sys.exit(main())
