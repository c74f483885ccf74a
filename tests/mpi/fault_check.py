#!/usr/bin/env python3
"""Faults on the mpi backend, each bounded in time (BOUND_S for the whole job):

  kill-rank: an endless sweep (-N 0) on 3 ranks; once rank 0 has printed a row, rank 1's
             process gets SIGKILL (as the OOM killer or a node failure would). The job must
             end, nonzero, within the bound; mpiexec names the rank and the signal; no results
             file is left (neither a half-written nor a complete one) and no temporary file.
  alloc:     --fault alloc:1 (a test hook: rank 1's buffer allocation throws): exit code 7,
             one message (rank 0's) naming rank 1 and its host, no results file.
  oom:       -e 1T on every rank, more than any CI host has: the mpi backend refuses the
             buffer before Linux overcommits it (no OOM killer): exit code 7, the message names
             every rank and points at -e/--maxbytes, no results file.
  oom-ulimit: the ranks under `ulimit -v` (address space 4 GiB), -e 3G: the allocation itself
             fails (std::bad_alloc) or the pre-check refuses it; either way exit code 7, the
             ranks named, no results file. Skipped for a binary built with AddressSanitizer
             (its shadow memory needs terabytes of address space).
  async-error: --fault async-error:1 (a test hook: rank 1's backend reports an asynchronous
             error, as NCCL's would after a network failure, and the rank stays blocked): the
             watchdog's polling ends the job with exit code 3 within the bound, naming rank 1
             and the error; no results file (nothing was measured before it).
  kept-error: the same error from the 16K size on (--fault async-error:1@16K, -b 1K -e 64K):
             rank 1 reports it to rank 0, which ends the job (exit 3) and keeps the 4 rows
             measured before it (1K to 8K) in --json: valid against results/schema, complete
             false, interrupted_by "error", summary.failure naming rank 1 and the error, the
             rows' sizes those printed, every element checked and right; no temporary file.
  kept-timeout: rank 2 hangs from 16K on (--fault hang:2@16K -T 5): rank 0's verdict (exit 4,
             rank 2 named) keeps the 4 rows the same way, interrupted_by "timeout".

    fault_check.py MODE --commsweep BIN --mpiexec MPIEXEC --workdir DIR
"""
import glob
import json
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import SKIP_CODE, finish_job, launcher, run, run_mode_checks, start_job  # noqa: E402
from results_json import validate  # noqa: E402

# The schema with its enums filled from the registries, which the build writes beside the
# binary (<build>/results/schema, `commsweep schema results`).
SCHEMA = os.path.join("results", "schema", "commsweep.results.v2.schema.json")

BOUND_S = 60
QUICK = ["--backend", "mpi", "-c", "1", "-w", "1", "-n", "2"]


def fresh_results(workdir):
    """The results path, no file there yet: an earlier run's must not count against this one."""
    results = os.path.join(workdir, "results.json")
    if os.path.exists(results):
        os.remove(results)
    return results


def run_bounded(cmd, workdir, problems):
    """A job that ends by itself: commsweep_check.run within BOUND_S. (rc, out, err, seconds)."""
    print("running: " + " ".join(cmd), flush=True)
    rc, out, err, elapsed, timed_out = run(cmd, BOUND_S, workdir)
    if timed_out:
        problems.append("still running after %d s: ended it" % BOUND_S)
    print("exit code %s after %.1f s" % (rc, elapsed))
    return rc, out, err, elapsed


def parent_pid(pid):
    """The parent of a process (None once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def rank_pid(mpiexec_pid, rank):
    """The pid of a rank's process: a descendant of mpiexec whose environment says its rank."""
    for environ in glob.glob("/proc/[0-9]*/environ"):
        pid = int(environ.split("/")[2])
        try:
            with open(environ, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if b"OMPI_COMM_WORLD_RANK=%d" % rank not in env:
            continue
        ppid = parent_pid(pid)
        while ppid is not None and ppid > 1:  # a descendant of this mpiexec, not of another test's
            if ppid == mpiexec_pid:
                return pid
            ppid = parent_pid(ppid)
    return None


def check_no_partial_results(results, problems):
    """Neither a results file (whole or half-written) nor a temporary one beside it."""
    leftovers = glob.glob(results + ".tmp.*")
    if leftovers:
        problems.append("temporary results files left behind: %s" % leftovers)
    if os.path.exists(results):
        problems.append("a results file was written: %s" % results)


def check_kill_rank(opts):
    results = fresh_results(opts.workdir)
    cmd = launcher(opts.mpiexec, 3) + [opts.commsweep, "all_reduce", "-b", "8", "-e", "64K",
                                        "-N", "0", "--json", results, "-T", "20"] + QUICK
    started = time.monotonic()
    proc, files = start_job(cmd, opts.workdir)
    problems = []
    victim = None
    while time.monotonic() - started < 30 and proc.poll() is None:
        with open(os.path.join(opts.workdir, "stdout.txt")) as f:
            if re.search(r"^\s+\d+\s+\d+\s+float", f.read(), re.M):
                victim = rank_pid(proc.pid, 1)
                break
        time.sleep(0.2)
    if victim is None:
        problems.append("no row printed, or rank 1's process not found, within 30 s")
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        print("SIGKILL to rank 1 (pid %d) %.1f s after start" % (victim, time.monotonic() - started))
        os.kill(victim, signal.SIGKILL)
    killed_at = time.monotonic()
    rc, out, err = finish_job(proc, files, opts.workdir, started + BOUND_S, problems,
                              "still running after %d s: ended it" % BOUND_S)
    print("exit code %s after %.1f s" % (rc, time.monotonic() - started))
    print("the job ended %.1f s after the kill" % (time.monotonic() - killed_at))
    if rc == 0:
        problems.append("exit code 0 after a rank was killed")
    if victim is not None and not re.search(r"rank 1 .*signal 9|signal 9.*rank 1", err.replace("\n", " ")):
        problems.append("stderr does not name rank 1 and signal 9")
    check_kept_or_none(results, problems)
    return problems, out, err


def check_kept_or_none(results, problems):
    """A killed rank makes mpirun end the others with SIGTERM: rank 0 may keep the rows measured
    so far (docs/failures.md), as a whole file marked incomplete, or write nothing; never a
    half-written file, a complete one, or a temporary one left beside it."""
    leftovers = glob.glob(results + ".tmp.*")
    if leftovers:
        problems.append("temporary results files left behind: %s" % leftovers)
    if not os.path.exists(results):
        return
    try:
        with open(results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        problems.append("a results file was left that is not whole JSON: %s" % e)
        return
    if doc.get("summary", {}).get("complete") is not False:
        problems.append("the results file of a job that lost a rank is not marked incomplete")


def check_out_of_memory(opts, np, args, ranks, wrapper=()):
    results = fresh_results(opts.workdir)
    cmd = launcher(opts.mpiexec, np) + list(wrapper) + [opts.commsweep] + args + [
        "--json", results] + QUICK
    problems = []
    rc, out, err, _ = run_bounded(cmd, opts.workdir, problems)
    if rc != 7:
        problems.append("exit code %s, expected 7 (out of memory)" % rc)
    messages = [l for l in err.splitlines() if l.startswith("commsweep:")]
    if len(messages) != 1 or "out of memory" not in messages[0]:
        problems.append("expected one 'commsweep: out of memory' message, got %s" % messages)
    else:
        named = sorted(int(r) for r in re.findall(r"rank (\d+) \(host ", messages[0]))
        if named != ranks:
            problems.append("ranks named: %s, expected %s" % (named, ranks))
        if "-e/--maxbytes" not in messages[0]:
            problems.append("the message does not point at -e/--maxbytes")
    if re.search(r"signal|core dumped|Killed", err):
        problems.append("a rank died instead of stopping cleanly")
    check_no_partial_results(results, problems)
    return problems, out, err


def check_alloc(opts):
    return check_out_of_memory(opts, 3, ["all_reduce", "-e", "1M", "--fault", "alloc:1"], [1])


def check_oom(opts):
    return check_out_of_memory(opts, 2, ["all_reduce", "-b", "1M", "-e", "1T", "-f", "1024"],
                               [0, 1])


def check_oom_ulimit(opts):
    # g++ links libasan dynamically, clang links its runtime in: the symbol is there either way.
    with open(opts.commsweep, "rb") as f:
        asan = b"__asan_init" in f.read()
    if asan:
        print("SKIP: built with AddressSanitizer, whose shadow memory does not fit `ulimit -v`")
        sys.exit(SKIP_CODE)
    limit_kib = 4 * 1024 * 1024  # 4 GiB of address space per rank; -e 3G needs two 3G buffers
    wrapper = ["/bin/sh", "-c", 'ulimit -v %d && exec "$0" "$@"' % limit_kib]
    return check_out_of_memory(opts, 2, ["all_reduce", "-b", "1M", "-e", "3G", "-f", "3072"],
                               [0, 1], wrapper)


def check_async_error(opts):
    results = fresh_results(opts.workdir)
    cmd = launcher(opts.mpiexec, 3) + [opts.commsweep, "all_reduce", "-e", "64K", "-T", "20",
                                        "--fault", "async-error:1", "--json", results] + QUICK
    problems = []
    rc, out, err, elapsed = run_bounded(cmd, opts.workdir, problems)
    if rc != 3:
        problems.append("exit code %s, expected 3 (a call failed)" % rc)
    if elapsed > 15:
        problems.append("took %.0f s: the watchdog polls every 0.2 s, -T is 20 s" % elapsed)
    if not re.search(r"rank 1 \(.*watchdog: asynchronous error", err):
        problems.append("stderr does not name rank 1's asynchronous error")
    check_no_partial_results(results, problems)
    return problems, out, err


def check_kept(opts, fault, rc_want, cause, named):
    """A fault from 16K on (-b 1K -e 64K): the rows of 1K to 8K kept, marked incomplete."""
    results = fresh_results(opts.workdir)
    cmd = launcher(opts.mpiexec, 3) + [opts.commsweep, "all_reduce", "-b", "1K", "-e", "64K", "-T", "5",
                                        "--fault", fault, "--json", results] + QUICK
    problems = []
    rc, out, err, elapsed = run_bounded(cmd, opts.workdir, problems)
    if rc != rc_want:
        problems.append("exit code %s, expected %d" % (rc, rc_want))
    if not re.search(named, err):
        problems.append("stderr does not match %r" % named)
    if not re.search(r"rank 0: the 4 rows measured before the %s are kept in %s \(complete: false\)"
                     % (cause, re.escape(results)), err):
        problems.append("rank 0 does not say it kept the 4 rows measured before the %s" % cause)
    leftovers = glob.glob(results + ".tmp.*")
    if leftovers:
        problems.append("temporary results files left behind: %s" % leftovers)
    if not os.path.exists(results):
        return problems + ["no results file at %s" % results], out, err
    with open(results) as f:
        doc = json.load(f)
    with open(os.path.join(os.path.dirname(os.path.abspath(opts.commsweep)), SCHEMA)) as f:
        schema = json.load(f)
    problems += ["schema: " + e for e in validate(doc, schema, schema)]
    summary = doc["summary"]
    want = {"complete": False, "ok": False, "interrupted_by": cause, "wrong_total": 0}
    for key, value in want.items():
        if summary.get(key) != value:
            problems.append("summary.%s is %r, expected %r" % (key, summary.get(key), value))
    if not re.search(named, summary.get("failure", "")):
        problems.append("summary.failure %r does not match %r" % (summary.get("failure"), named))
    sizes = [r["size_bytes"] for r in doc["rows"]]
    printed = [int(m) for m in re.findall(r"^\s+(\d+)\s+\d+\s+float\s+sum", out, re.M)]
    if sizes != [1024, 2048, 4096, 8192] or printed != sizes:
        problems.append("rows kept for sizes %s, printed %s; expected 1K to 8K" % (sizes, printed))
    for r in doc["rows"]:
        for half in ("out_of_place", "in_place"):
            if r[half]["wrong"] != 0 or not r[half]["busbw_gbps"] > 0:
                problems.append("row %d %s: wrong %r, busbw %r" % (r["size_bytes"], half, r[half]["wrong"],
                                                                   r[half]["busbw_gbps"]))
    return problems, out, err


def check_kept_error(opts):
    return check_kept(opts, "async-error:1@16K", 3, "error", r"rank 1 \(.*\): watchdog: asynchronous error")


def check_kept_timeout(opts):
    problems, out, err = check_kept(opts, "hang:2@16K", 4, "timeout", r"ranks that did not arrive: 2 \(")
    # The hang's witness says in one line why there is no NCCL account, on stderr, in
    # summary.failure and as the file's nccl_ras (docs/failures.md, NCCL's account of a hang).
    line = "NCCL RAS: not asked (mpi backend: no NCCL)"
    verdict = next((l for l in err.splitlines() if "ranks that did not arrive" in l), "")
    if not verdict.endswith("; " + line):
        problems.append("the verdict does not end with %r: %r" % (line, verdict))
    results = os.path.join(opts.workdir, "results.json")
    if os.path.exists(results):
        with open(results) as f:
            doc = json.load(f)
        ras = doc.get("nccl_ras") or {}
        if ras.get("state") != "not asked" or ras.get("line") != line:
            problems.append("nccl_ras is %r, expected state 'not asked' and line %r" % (ras, line))
        if line not in doc["summary"].get("failure", ""):
            problems.append("summary.failure does not carry %r" % line)
    return problems, out, err


CHECKS = {"async-error": check_async_error, "kept-error": check_kept_error, "kept-timeout": check_kept_timeout, "kill-rank": check_kill_rank, "alloc": check_alloc, "oom": check_oom,
          "oom-ulimit": check_oom_ulimit}


def main():
    return run_mode_checks(__doc__, CHECKS)


if __name__ == "__main__":
    sys.exit(main())
