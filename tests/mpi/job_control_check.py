#!/usr/bin/env python3
"""Job-control checks of commsweep under mpiexec, each bounded in time:

  mismatch: ranks started with different arguments (MPMD: 2 ranks with one command line, 1
            with another) are refused at start: exit code 2, the odd rank named.
  sigterm:  an endless sweep (-N 0) under mpiexec; mpiexec receives SIGTERM (as Kubernetes
            sends it at activeDeadlineSeconds): the job ends within the bound, nonzero, and
            the JSON is written with the rows measured so far, summary.complete false and
            summary.interrupted_by SIGTERM.
  sigterm-singleton: the same sweep without mpiexec, the process signalled itself: also
            exit code 5 and the table says that the run was interrupted.
  sigterm-suite: `commsweep suite` signalled during its first sweep (a singleton): exit code
            5, the rows so far written, the suite's later sweeps not started.
  sigterm-setup: every measuring command (a sweep, ep, suite, pairs) signalled while its set-up
            is held (rank 0's health snapshot reads a FIFO in its COMMSWEEP_SYSFS_ROOT tree):
            the one lifecycle (src/run/measuring_run.hpp) leaves the same incomplete file for
            each: no rows, summary.complete false, interrupted_by SIGTERM, a failure saying that
            nothing was measured yet, and the run's arguments in its provenance.
  sigint-moments: Ctrl-C as a user gives it: SIGINT to mpirun (which forwards SIGTERM to the
            ranks and kills them a second later) at 20 moments from the set-up to deep in the
            sweep. Every time either the JSON holds every row the table showed, marked
            incomplete, or rank 0 said why there was nothing to keep; and it said "interrupted".

    job_control_check.py MODE --commsweep BIN --mpiexec MPIEXEC --workdir DIR
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import REPO, finish_job, launcher, run_mode_checks, start_job  # noqa: E402
from results_json import validate  # noqa: E402

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


def run_and_signal(cmd, workdir, after_s):
    """Starts cmd, sends SIGTERM after `after_s` seconds, waits up to BOUND_S.
    Returns (problems, out, err, returncode)."""
    start = time.monotonic()
    problems = []
    p, files = start_job(cmd, workdir)
    time.sleep(after_s)
    p.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    rc, out, err = finish_job(p, files, workdir, signalled + BOUND_S, problems,
                              "still running %d s after SIGTERM" % BOUND_S)
    print("ended %.1f s after SIGTERM (sent %.0f s after start), exit code %d"
          % (time.monotonic() - signalled, signalled - start, rc))
    if rc == 0:
        problems.append("exit code 0 for an interrupted run")
    return problems, out, err, rc


def check_interrupted_json(results):
    problems = []
    try:
        with open(results) as f:
            doc = json.load(f)
        if doc["summary"]["complete"] is not False or doc["summary"]["ok"] is not False:
            problems.append("summary.complete / ok not false: %s" % doc["summary"])
        if doc["summary"].get("interrupted_by") != "SIGTERM":
            problems.append("summary.interrupted_by is not SIGTERM: %s" % doc["summary"])
        if not doc["rows"]:
            problems.append("no rows kept from before the signal")
        if any(r["out_of_place"]["wrong"] != 0 for r in doc["rows"]):
            problems.append("a kept row has wrong elements")
    except (OSError, ValueError, KeyError) as e:
        problems.append("results JSON missing or unreadable: %s" % e)
    return problems


def sweep_args(results):
    return ["all_reduce", "-b", "8", "-e", "64K", "-N", "0", "--json", results]


def check_sigterm(opts):
    """mpirun is signalled. The table's last lines are not asserted here: Open MPI 4.1's
    mpirun stops reading the ranks' output from the moment it is signalled (SIGCONT, a sleep
    of odls_base_sigkill_timeout, SIGTERM, a sleep, SIGKILL), so what rank 0 prints after the
    signal may never arrive. The JSON is a file and must be complete."""
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = launcher(opts.mpiexec, 3) + [opts.commsweep] + sweep_args(results)
    problems, out, err, _ = run_and_signal(cmd, opts.workdir, 5)
    return problems + check_interrupted_json(results), out, err


def check_sigterm_singleton(opts):
    """The process itself is signalled (a singleton, as a pod's PID 1 would be): here the
    table must also say that the run was interrupted, and the process exits with 5."""
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = [opts.commsweep] + sweep_args(results)
    problems, out, err, rc = run_and_signal(cmd, opts.workdir, 4)
    if rc != 5:
        problems.append("exit code %d, expected 5 (interrupted)" % rc)
    if "interrupted (SIGTERM" not in out:
        problems.append("the table does not say the run was interrupted")
    return problems + check_interrupted_json(results), out, err


def check_sigterm_suite(opts):
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                         "suite_long_then_ep.yaml")
    cmd = [opts.commsweep, "suite", suite, "--backend", "mpi", "--json", results]
    problems, out, err, rc = run_and_signal(cmd, opts.workdir, 4)
    if rc != 5:
        problems.append("exit code %d, expected 5 (interrupted)" % rc)
    if "interrupted (SIGTERM" not in out:
        problems.append("the table does not say the run was interrupted")
    if "# Suite stopped: the 1 sweep(s) after this one did not run" not in out:
        problems.append("the output does not say that the later sweep was skipped")
    if "never-reached" in out:
        problems.append("the sweep after the interrupted one started")
    problems += check_interrupted_json(results)
    try:
        with open(results) as f:
            if json.load(f)["ep_rows"]:
                problems.append("ep_rows from a sweep that should not have run")
    except (OSError, ValueError, KeyError) as e:
        problems.append("results JSON missing or unreadable: %s" % e)
    return problems, out, err


def held_setup_tree(workdir):
    """COMMSWEEP_SYSFS_ROOT trees per emulated node: node0's first sysfs file the health snapshot
    reads is a FIFO, which holds rank 0 inside the set-up until a writer opens it; node1's is
    empty. Returns (wrapper, fifo)."""
    trees = os.path.join(workdir, "trees")
    port = os.path.join(trees, "node0", "sys", "class", "infiniband", "mlx5_0", "ports", "1")
    os.makedirs(port, exist_ok=True)
    os.makedirs(os.path.join(trees, "node1"), exist_ok=True)
    fifo = os.path.join(port, "state")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    wrapper = os.path.join(workdir, "per-node-sysfs.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nCOMMSWEEP_SYSFS_ROOT="%s/$NCCL_HOSTID" exec "$@"\n' % trees)
    os.chmod(wrapper, 0o755)
    return wrapper, fifo


def release(fifo):
    """Opens FIFO for writing and closes it (its reader reads an empty file); False when no
    reader has it open."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False


def wait_for_reader(fifo, until):
    """Waits until a reader holds FIFO open: a non-blocking writer can open it then (ENXIO
    before). The writer's descriptor is returned, to be closed once the signal was sent (its
    close releases the reader); None past `until`."""
    while time.monotonic() < until:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
    return None


SETUP_COMMANDS = {
    "sweep": ["all_reduce", "-b", "8", "-e", "1K"],
    "ep": ["ep", "--tokens", "4", "--hidden", "128", "--topk", "1", "--experts", "2"],
    "suite": ["suite", "SUITE"],  # a suite of one small sweep, written to the workdir
    "pairs": ["pairs", "-s", "4K", "-n", "2", "-w", "1"],
}


def check_sigterm_setup(opts):
    problems, log = [], []
    schemas = {}
    for kind in ("results", "pairs"):
        with open(os.path.join(REPO, "results", "schema", "commsweep.%s.v2.schema.json" % kind)) as f:
            schemas[kind] = json.load(f)
    for name, args in SETUP_COMMANDS.items():
        workdir = os.path.join(opts.workdir, name)
        os.makedirs(workdir, exist_ok=True)
        wrapper, fifo = held_setup_tree(workdir)
        results = os.path.join(workdir, "results.json")
        if os.path.exists(results):
            os.remove(results)
        suite = os.path.join(workdir, "suite.yaml")
        with open(suite, "w") as f:
            f.write("- name: small\n  kind: collective\n  tests: [all_reduce]\n  max_bytes: 1K\n")
        arguments = [suite if a == "SUITE" else a for a in args] + ["--backend", "mpi", "-T", "60", "--json", results]
        os.environ["COMMSWEEP_RANKS_PER_NODE"] = "1"  # 2 nodes of 1 rank: pairs runs too
        cmd = (launcher(opts.mpiexec, 2) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), wrapper,
                                            opts.commsweep] + arguments)
        found = []
        p, files = start_job(cmd, workdir)
        held = wait_for_reader(fifo, time.monotonic() + 30)
        if held is None:
            found.append("rank 0 never reached the health snapshot of its set-up")
        p.send_signal(signal.SIGTERM)
        for _ in range(100):  # rank 0's keeper writes at the signal, on its own thread
            if os.path.exists(results):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        doc = None
        try:
            with open(results) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            found.append("no results file after a SIGTERM during the set-up: %s" % e)
        if held is not None:
            os.close(held)
        release(fifo)
        rc, out, err = finish_job(p, files, workdir, time.monotonic() + BOUND_S, found,
                                  "still running %d s after SIGTERM" % BOUND_S)
        if rc == 0:
            found.append("exit code 0 for an interrupted run")
        if doc is not None:
            summary = doc.get("summary", {})
            unit = "pair" if name == "pairs" else "row"
            if summary.get("complete") is not False or summary.get("interrupted_by") != "SIGTERM":
                found.append("summary not incomplete by SIGTERM: %s" % summary)
            if "before any %s was measured" % unit not in summary.get("failure", ""):
                found.append("summary.failure does not say that no %s was measured: %s" % (unit, summary.get("failure")))
            measured = doc.get("pairs", []) if name == "pairs" else doc.get("rows", []) + doc.get("ep_rows", [])
            if measured:
                found.append("%d measurements in a file written before any was measured" % len(measured))
            if doc.get("provenance", {}).get("arguments") != arguments:
                found.append("provenance.arguments %s, expected %s" % (doc.get("provenance", {}).get("arguments"), arguments))
            schema = schemas["pairs" if name == "pairs" else "results"]
            errors = validate(doc, schema, schema)
            found += ["schema: %s" % e for e in errors[:5]]
        log.append("%s: exit %s, %s" % (name, rc, "ok" if not found else "; ".join(found)))
        problems += ["%s: %s" % (name, x) for x in found]
    text = "\n".join(log) + "\n"
    print(text)
    return problems, text, ""


# Seconds after mpirun starts: dense early (the ranks start, the preflight, the set-up take a
# few tenths of a second here), then deep into the sweep.
MOMENTS_S = [0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 0.9, 1.2, 1.5, 2.0, 2.5,
             3.0, 4.0, 5.0]
TABLE_ROW = re.compile(r"^\s+(\d+)\s+\d+\s+\S+\s+\S+\s+-?\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+")


def shown_sizes(out):
    """The sizes of the table rows the user saw, in order."""
    return [int(m.group(1)) for m in map(TABLE_ROW.match, out.splitlines()) if m]


def judge_interrupt(results, out, err):
    """Problems with one interrupted run: kept rows, or the stated reason."""
    problems = []
    shown = shown_sizes(out)
    said = [l for l in err.splitlines() if l.startswith("commsweep: rank 0: interrupted")]
    if not said:
        problems.append("rank 0 said nothing starting 'interrupted' on stderr")
    if not os.path.exists(results):
        nothing = any("before any row was measured" in l or "before anything was measured" in l for l in said)
        if shown or not nothing:
            problems.append("no JSON, %d rows shown, and no line saying nothing was measured" % len(shown))
        return problems, "no JSON: " + (said[0] if said else "(silent)")
    try:
        with open(results) as f:
            doc = json.load(f)
    except ValueError as e:
        return problems + ["the JSON is not valid: %s" % e], "broken JSON"
    kept = [r["size_bytes"] for r in doc["rows"]]
    if doc["summary"]["complete"] is not False:
        problems.append("an endless sweep's JSON says complete")
    if kept[:len(shown)] != shown:
        problems.append("the JSON's rows %s do not start with the %d rows shown %s" % (kept[:8], len(shown), shown[:8]))
    return problems, "JSON with %d rows (%d shown), interrupted_by %s" % (
        len(kept), len(shown), doc["summary"].get("interrupted_by"))


def ranks_started(session, binary):
    """How many processes of BINARY run in the session (mpirun's, start_new_session): the ranks
    that mpirun had started when the signal was sent."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == session and os.path.realpath("/proc/%s/exe" % pid) == binary:
                count += 1
        except (OSError, IndexError, ValueError):
            continue
    return count


def check_sigint_moments(opts):
    problems, log = [], []
    for i, moment in enumerate(MOMENTS_S):
        workdir = os.path.join(opts.workdir, "moment-%02d" % i)
        os.makedirs(workdir, exist_ok=True)
        results = os.path.join(workdir, "results.json")
        if os.path.exists(results):
            os.remove(results)
        cmd = launcher(opts.mpiexec, 2) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "32M", "-N", "0",
                                           "--backend", "mpi", "--json", results]
        run_problems = []
        p, files = start_job(cmd, workdir)
        time.sleep(moment)
        started = ranks_started(p.pid, os.path.realpath(opts.commsweep))
        p.send_signal(signal.SIGINT)  # to mpirun alone, as a terminal's Ctrl-C reaches it
        rc, out, err = finish_job(p, files, workdir, time.monotonic() + 30, run_problems,
                                  "still running 30 s after SIGINT")
        if started == 0 and not os.path.exists(results) and not shown_sizes(out):
            # mpirun stopped before it started any rank: nothing measured, no commsweep to speak.
            found, what = [], "mpirun interrupted before it started a rank: nothing measured"
        else:
            found, what = judge_interrupt(results, out, err)
        run_problems += found
        log.append("moment %.2f s: exit %s, %s%s" % (moment, rc, what,
                                                    "" if not run_problems else " -- " + "; ".join(run_problems)))
        problems += ["moment %.2f s: %s" % (moment, x) for x in run_problems]
    text = "\n".join(log) + "\n"
    print(text)
    return problems, text, ""


CHECKS = {"mismatch": check_mismatch, "sigterm": check_sigterm,
          "sigterm-singleton": check_sigterm_singleton, "sigterm-suite": check_sigterm_suite,
          "sigterm-setup": check_sigterm_setup, "sigint-moments": check_sigint_moments}


def main():
    return run_mode_checks(__doc__, CHECKS)


if __name__ == "__main__":
    sys.exit(main())
