#!/usr/bin/env python3
"""Runs commsweep under mpiexec and checks what it did: exit code, table, JSON, messages.

    commsweep_check.py --commsweep BIN --np N --expect ok --schema SCHEMA --workdir DIR \
        -- all -d float,bf16 -c 1 --backend mpi

--expect says what the run must do:
  ok       exit 0; nccl-tests' table layout with one row per expected size, type and operator,
           #wrong 0 (N/A where nccl-tests prints it), the "OK" footers; the --json results
           valid against results/schema and equal to the table, row by row.
  wrong    exit 8 (wrong data); a "# Out of bounds values : N FAILED" footer with N > 0; stderr names
           the rank given by --rank; the JSON summary says not ok.
  timeout  exit 4 within --bound seconds; stderr names --rank as the one rank that did
           not arrive.
  usage    exit 2; stderr names every --flag, said once (by rank 0); no table.
  help     exit 0; the help text once, naming every nccl-tests flag.

--np gpus counts the GPUs (CUDA_VISIBLE_DEVICES, else `nvidia-smi -L`) and exits with
SKIP_CODE, saying why, when there are none. Standard library only: the CI image has
nothing else.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # the modules beside this file: no __pycache__ in the sources
from expected_sweep import TESTS, Sweep  # noqa: E402
from nccl_table import check_rows_expected, check_section_layout, parse_table  # noqa: E402
from results_json import check_gpus, check_json  # noqa: E402

SKIP_CODE = 77  # ctest's SKIP_RETURN_CODE for the gpu tests (the automake convention)

HELP_FLAGS = ["--minbytes", "--maxbytes", "--stepbytes", "--stepfactor", "--iters",
              "--warmup_iters", "--check", "--datatype", "--op", "--root", "--blocking",
              "--cudagraph", "--average", "--run_cycles", "--timeout", "--backend", "--json",
              "--seed", "--help", "--version"]


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Failures:
    """Every problem found, so that one run reports them all."""

    def __init__(self):
        self.messages = []

    def check(self, ok, message):
        if not ok:
            self.messages.append(message)
        return ok


def gpu_count():
    """Visible GPUs, or (0, why)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1", "none", "NoDevFiles"):
        return 0, "CUDA_VISIBLE_DEVICES=%r hides every GPU" % visible
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return 0, "nvidia-smi not found (no NVIDIA driver on this machine)"
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 0, "nvidia-smi -L did not answer within 60 s"
    gpus = [l for l in out.stdout.splitlines() if l.startswith("GPU ")]
    if out.returncode != 0 or not gpus:
        why = out.stderr.strip() or "exit code %d" % out.returncode
        return 0, "nvidia-smi -L lists no GPU (%s)" % why
    if visible is not None:
        return min(len(gpus), len([v for v in visible.split(",") if v.strip()])), ""
    return len(gpus), ""


def verdict(fail, what, out, err):
    """Prints PASSED or the problems with the job's last output; the exit code to return."""
    if fail.messages:
        print("FAILED (%d problems):" % len(fail.messages))
        for m in fail.messages[:40]:
            print("  - " + m)
        print("---- stdout (last 40 lines)\n" + "\n".join(out.splitlines()[-40:]))
        print("---- stderr (last 40 lines)\n" + "\n".join(err.splitlines()[-40:]))
        return 1
    print("PASSED: %s" % what)
    return 0


def run_mode_checks(description, checks):
    """main() of a checker of named modes: `CHECKER MODE --commsweep B [--mpiexec M] --workdir D`;
    checks[MODE](opts) returns (problems, stdout, stderr)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("mode", choices=sorted(checks))
    parser.add_argument("--commsweep", required=True)
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--workdir", required=True)
    opts = parser.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    problems, out, err = checks[opts.mode](opts)
    fail = Failures()
    for p in problems:
        fail.check(False, p)
    return verdict(fail, opts.mode, out, err)


def launcher(mpiexec, np):
    """mpiexec -n N, and for Open MPI --oversubscribe (more ranks than cores on CI) and
    --allow-run-as-root (CI and the GPU machines run as root)."""
    cmd = [mpiexec, "-n", str(np)]
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True)
    if "Open MPI" in version.stdout + version.stderr or "OpenRTE" in version.stdout:
        cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd


def start_job(cmd, workdir):
    """Starts cmd in a process group of its own, its output in workdir/stdout.txt and
    stderr.txt (files, not pipes: a pipe nobody reads while the job runs fills up and blocks
    mpirun), for a checker that acts on the job while it runs. (proc, files)."""
    print("running: " + " ".join(cmd), flush=True)
    files = (open(os.path.join(workdir, "stdout.txt"), "w"), open(os.path.join(workdir, "stderr.txt"), "w"))
    return subprocess.Popen(cmd, stdout=files[0], stderr=files[1], start_new_session=True), files


def finish_job(proc, files, workdir, until, problems, overdue):
    """Waits for a start_job job until `until` (time.monotonic()); past it ends its process group
    and adds `overdue` to problems. (returncode, stdout, stderr)."""
    try:
        proc.wait(timeout=max(1.0, until - time.monotonic()))
    except subprocess.TimeoutExpired:
        problems.append(overdue)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for f in files:
        f.close()
    with open(os.path.join(workdir, "stdout.txt")) as f:
        out = f.read()
    with open(os.path.join(workdir, "stderr.txt")) as f:
        err = f.read()
    return proc.returncode, out, err


def run(cmd, bound, workdir):
    """Runs cmd in its own process group; ends the group if it outlives `bound` seconds."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        timed_out = True
        for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 30)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, err = proc.communicate(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                out, err = "", ""
    elapsed = time.monotonic() - start
    for name, text in (("stdout.txt", out), ("stderr.txt", err)):
        with open(os.path.join(workdir, name), "w") as f:
            f.write(text or "")
    return proc.returncode, out or "", err or "", elapsed, timed_out


def check_ok_or_wrong(opts, sweep, nranks, args, rc, out, err, fail):
    want_rc = 0 if opts.expect == "ok" else 8  # wrong data (docs/failures.md)
    fail.check(rc == want_rc, "exit code %s, expected %d" % (rc, want_rc))
    sections = parse_table(out, fail)
    fail.check(len(sections) > 0, "no table printed")
    for s in sections:
        check_section_layout(s, nranks, fail)
        fail.check(" buffers: %s " % sweep.buffers in s.parameters,
                   "%s: parameters line %r does not say 'buffers: %s'"
                   % (s.test, s.parameters, sweep.buffers))
    check_rows_expected(sweep, sections, nranks, opts.expect, fail)
    if opts.expect == "wrong":
        failed = [s.oob[0] for s in sections if s.oob and s.oob[1] == "FAILED"]
        fail.check(failed and all(n > 0 for n in failed),
                   "no '# Out of bounds values : N FAILED' footer with N > 0")
        fail.check(all(s.oob[0] == 0 for s in sections if s.oob and s.oob[1] == "OK"),
                   "an 'OK' footer with a non-zero count")
        fail.check(re.search(r"rank %d \(.*wrong elements" % opts.rank, err),
                   "stderr does not name rank %d and its wrong elements" % opts.rank)
    path = sweep.flags.get("json")
    if not fail.check(path and os.path.exists(path), "no results JSON at %s" % path):
        return
    with open(path) as f:
        doc = json.load(f)
    with open(opts.schema) as f:
        schema = json.load(f)
    if not check_json(doc, schema, sections, sweep, nranks, args, fail):
        return
    if opts.expect == "wrong":
        fail.check(doc["summary"]["ok"] is False, "summary.ok is not false")
    check_git_hash(doc["provenance"]["git_hash"], fail)
    if opts.gpus:
        check_gpus(doc, opts.one_gpu_per_rank, fail)
    if opts.nodes:
        check_nodes(opts.nodes, nranks, out, doc, fail)


def check_git_hash(recorded, fail):
    """The commit the binary was built from is the one checked out (cmake/WriteVersion.cmake
    writes it at every build): HEAD's 12 digits, perhaps with -dirty; "unknown" outside git."""
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return  # no git here: nothing to compare with
    want = head.stdout.strip() if head.returncode == 0 else "unknown"
    fail.check(recorded in (want, want + "-dirty"),
               "provenance.git_hash %r, but %s is checked out (the binary is older than the "
               "checkout, or the version header was not rewritten at build time)" % (recorded, want))


def check_nodes(nodes, nranks, out, doc, fail):
    """Ranks run under NCCL_HOSTID=node<K> (scripts/emulate-nodes.sh) form `nodes` nodes."""
    fail.check(re.search(r"World: %d ranks on %d hosts:" % (nranks, nodes), out),
               "the world line does not say %d ranks on %d hosts" % (nranks, nodes))
    hosts = doc["provenance"]["hosts"]
    per_node = nranks // nodes
    want = [h.split("/")[0] + "/node%d" % (r // per_node) for r, h in enumerate(hosts)]
    fail.check(hosts == want, "provenance.hosts %s, expected %s" % (hosts, want))


def check_timeout(opts, rc, err, elapsed, timed_out, fail):
    fail.check(not timed_out, "still running after %.0f s (--bound); ended it" % opts.bound)
    fail.check(rc == 4, "exit code %s, expected 4 (timeout)" % rc)
    fail.check(elapsed <= opts.bound,
               "the job took %.1f s, more than %.0f s" % (elapsed, opts.bound))
    m = re.search(r"ranks that did not arrive: ([^;\n]*)", err)
    if fail.check(m is not None, "stderr names no rank that did not arrive"):
        ranks = [int(x) for x in re.findall(r"(\d+) \(", m.group(1))]
        fail.check(ranks == [opts.rank], "ranks named as not arriving: %s, expected [%d]"
                   % (ranks, opts.rank))
    fail.check("-T" in err, "the timeout message does not point at -T")
    # The first error line is the verdict (as scripts/gpu-faults.sh reads it): no other rank's
    # message, e.g. the hung rank's own watchdog, may end the job before rank 0 names it.
    first = next((l for l in err.splitlines()
                  if l.startswith("commsweep") and ": fault injection: " not in l), "")
    fail.check("ranks that did not arrive: " in first,
               "the first error line is not rank 0's verdict: %r" % first)


def check_usage(opts, rc, out, err, fail):
    fail.check(rc == 2, "exit code %s, expected 2 (usage)" % rc)
    messages = [l for l in err.splitlines() if l.startswith("commsweep:")]
    fail.check(len(messages) == 1, "expected one 'commsweep:' message (rank 0's), got %d: %s"
               % (len(messages), messages))
    for flag in opts.flag:
        fail.check(any(flag in m for m in messages),
                   "the message does not name %s: %s" % (flag, messages))
    fail.check(not any(l and not l.startswith("#") for l in out.splitlines()),
               "table rows printed on a usage error")


def check_help(rc, out, fail):
    fail.check(rc == 0, "exit code %s, expected 0" % rc)
    fail.check(out.count("Usage:") == 1, "the help text appears %d times (rank 0 alone "
               "prints it)" % out.count("Usage:"))
    for flag in HELP_FLAGS:
        fail.check(flag in out, "--help does not list %s" % flag)
    for t in TESTS:
        fail.check(t.name in out, "--help does not list the test %s" % t.name)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", required=True, help="ranks, or 'gpus': one per visible GPU")
    p.add_argument("--wrapper", help="a program each rank runs commsweep through")
    p.add_argument("--expect", choices=["ok", "wrong", "timeout", "usage", "help"], default="ok")
    p.add_argument("--rank", type=int, default=1, help="the faulty rank (wrong, timeout)")
    p.add_argument("--flag", action="append", default=[], help="text the usage error must name")
    p.add_argument("--bound", type=float, default=300, help="seconds the job may take")
    p.add_argument("--schema", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--nodes", type=int, default=0,
                   help="emulate this many nodes (scripts/emulate-nodes.sh) and check them")
    p.add_argument("--one-gpu-per-rank", action="store_true",
                   help="each rank sees one GPU: check that every rank uses device 0")
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then commsweep's arguments")
    opts = p.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args

    opts.gpus = opts.np == "gpus"
    if opts.gpus:
        nranks, why = gpu_count()
        if nranks == 0:
            print("SKIP: no GPU: %s" % why)
            return SKIP_CODE
    else:
        nranks = int(opts.np)

    os.makedirs(opts.workdir, exist_ok=True)
    for stale in ("results.json", "stdout.txt", "stderr.txt"):
        if os.path.exists(os.path.join(opts.workdir, stale)):
            os.remove(os.path.join(opts.workdir, stale))
    if opts.expect in ("ok", "wrong") and "--json" not in args:
        args = args + ["--json", os.path.join(opts.workdir, "results.json")]

    wrapper = [opts.wrapper] if opts.wrapper else []
    if opts.nodes:
        os.environ["COMMSWEEP_RANKS_PER_NODE"] = str(nranks // opts.nodes)
        wrapper = [os.path.join(REPO, "scripts", "emulate-nodes.sh")] + wrapper
    cmd = launcher(opts.mpiexec, nranks) + wrapper + [opts.commsweep] + args
    print("running: " + " ".join(cmd), flush=True)
    rc, out, err, elapsed, timed_out = run(cmd, opts.bound, opts.workdir)
    print("exit code %s after %.1f s; output in %s" % (rc, elapsed, opts.workdir))

    fail = Failures()
    fail.check(not timed_out or opts.expect == "timeout",
               "the job was still running after %.0f s; ended it" % opts.bound)
    if opts.expect in ("ok", "wrong"):
        check_ok_or_wrong(opts, Sweep(args), nranks, args, rc, out, err, fail)
    elif opts.expect == "timeout":
        check_timeout(opts, rc, err, elapsed, timed_out, fail)
    elif opts.expect == "usage":
        check_usage(opts, rc, out, err, fail)
    else:
        check_help(rc, out, fail)

    return verdict(fail, opts.expect, out, err)


if __name__ == "__main__":
    sys.exit(main())
