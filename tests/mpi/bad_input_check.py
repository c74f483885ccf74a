#!/usr/bin/env python3
"""Every bad input we could think of (tests/mpi/bad_input_cases.py), given to the real programs:
commsweep's sweeps (one process, MPI singleton; the ranks' agreement on usage errors is tested
under mpiexec by the usage.* tests), compare, baseline, suite, topo validate, env, transport, and
the launcher scripts' hostfile parsing. Each case must end within BOUND_S with its exit code
(2 unless the case says otherwise) and one message naming the input, must not write or change
any file it names (nor leave a temporary file beside one), and, where its output is eval'd,
print nothing on stdout. Topology cases also check that nothing an external entity names was
read or contacted. Writes the table of what happened to WORKDIR/bad_inputs.md.

    bad_input_check.py --commsweep BIN --scripts DIR --fixtures DIR --suites DIR --workdir DIR
                       [--mpiexec MPIEXEC]
"""
import argparse
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_cases as cases  # noqa: E402
from commsweep_check import Failures, launcher, verdict  # noqa: E402

BOUND_S = 30  # one case; a bad input is refused in well under a second
SENTINEL = b"sentinel: must survive every bad input\n"
# The caller's settings must not leak into the cases (env reads them, the launcher passes them on).
CLEARED = re.compile(r"^(PCIDEVICE_|NCCL_|UCX_|COMMSWEEP_|OMPI_|PMIX_)")


def snapshot(path):
    """What a path holds now: None (absent), its bytes, or a folder's names and bytes."""
    if os.path.isdir(path):
        out = []
        for name in sorted(os.listdir(path)):
            out.append((name, snapshot(os.path.join(path, name))))
        return tuple(out)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read()
    return None


def leftovers(paths):
    """Temporary files of an atomic write beside any of the paths."""
    found = []
    for folder in {os.path.dirname(p) or "." for p in paths}:
        found += glob.glob(os.path.join(folder, "*.tmp.*"))
    return found


def pending_connections(listener):
    """Connections made to the listener (an external entity or DTD fetched), accepted and closed."""
    count = 0
    while True:
        try:
            conn, _ = listener.accept()
        except (BlockingIOError, socket.timeout):
            return count
        conn.close()
        count += 1


def shown(opts, case):
    """The command as the table shows it: $W for the test's folder, long arguments cut."""
    def cut(a):
        a = a.replace(opts.workdir, "$W").replace(opts.commsweep, "commsweep")
        a = a.replace(opts.scripts, "scripts")
        return a if len(a) <= 60 else "%s...(%d bytes)" % (a[:40], len(a))
    words = ["%s=%s" % (k, cut(v)) for k, v in sorted(case.env.items())
             if not k.startswith("COMMSWEEP_BIN") and not k.startswith("COMMSWEEP_RESULTS")]
    words += ["mpiexec", "-n", str(case.np)] if case.np else []
    words += [cut(a) if a else "''" for a in case.argv]
    return " ".join(words).replace("|", "\\|")


def names_all(names, line):
    """Whether LINE holds every name: a text, or a compiled pattern for what differs between
    machines (the memory a host has available)."""
    return all(n.search(line) if isinstance(n, re.Pattern) else n in line for n in names)


def shown_name(name):
    return "/%s/" % name.pattern if isinstance(name, re.Pattern) else name


def run_case(opts, case, listener, fail):
    before = {p: snapshot(p) for p in case.outputs}
    env = {k: v for k, v in os.environ.items() if not CLEARED.match(k)}
    env.update(case.env)
    if case.before:
        case.before()
    start = time.monotonic()
    stdout = open(case.stdout_to, "wb") if case.stdout_to else subprocess.PIPE
    try:
        argv = (launcher(opts.mpiexec, case.np) if case.np else []) + case.argv
        p = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=BOUND_S, env=env, stdin=subprocess.DEVNULL)
        rc, out, err = p.returncode, p.stdout or "", p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", ""
    finally:
        if case.stdout_to:
            stdout.close()
    elapsed = time.monotonic() - start
    messages = [l for l in err.splitlines() if re.match(case.prefix, l)]
    problems = []
    allowed = case.rc if isinstance(case.rc, tuple) else (case.rc,)
    if rc not in allowed:
        problems.append("exit code %s, expected %s" % (rc, " or ".join(str(c) for c in allowed)))
    if 0 not in allowed and case.one_message and len(messages) != 1:
        problems.append("%d messages" % len(messages))
    where = [out] if case.names_in == "stdout" else messages
    if not any(names_all(case.names, line) for line in where):
        problems.append("does not name %s" % ", ".join(shown_name(n) for n in case.names))
    if case.stdout_empty and out:
        problems.append("%d bytes on stdout" % len(out))
    changed = [p for p in case.outputs if snapshot(p) != before[p]]
    if changed:
        problems.append("wrote or changed %s" % ", ".join(changed))
    if case.after:
        problems += case.after(out, err)
    left = leftovers(case.outputs)
    if left:
        problems.append("left %s" % ", ".join(left))
    if case.secret and (case.secret in out or case.secret in err):
        problems.append("the file an external entity names was read")
    connections = pending_connections(listener)
    if connections:
        problems.append("%d connections to the address an external entity names" % connections)
    for problem in problems:
        fail.check(False, "%s: %s (%s)" % (case.label, problem, shown(opts, case)))
    saw = out.strip().splitlines() if case.names_in == "stdout" else messages
    seen = next((l for l in saw if names_all(case.names, l)), saw[0] if saw else "(none)")
    seen = seen.replace(opts.workdir, "$W")
    if len(seen) > 160:
        seen = seen[:157] + "..."
    return "| %s | %s | `%s` | %s | %.1f | %s | %s |" % (
        case.group, case.label, shown(opts, case), rc, elapsed, seen.replace("|", "\\|"),
        "ok" if not problems else "FAIL: " + "; ".join(problems))


def setup_run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=BOUND_S * 2)
    if p.returncode != 0:
        sys.exit("setup failed (%s, exit %d): %s\n%s" % (what, p.returncode, " ".join(cmd), p.stderr))


def prepare(opts, listener_url):
    """Fresh fixture files from a real run, its baseline, the history, the sentinel files."""
    for entry in os.listdir(opts.workdir):
        path = os.path.join(opts.workdir, entry)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    w = os.path.join(opts.workdir, "files")
    keep_dir = os.path.join(opts.workdir, "keep")
    os.makedirs(w)
    os.makedirs(keep_dir)
    run_json, base_json = os.path.join(opts.workdir, "run.json"), os.path.join(opts.workdir, "base.json")
    setup_run([opts.commsweep, "all_reduce", "-b", "8", "-e", "1K", "--backend", "mpi", "-n", "2",
               "-w", "1", "--no-preflight", "--json", run_json], "a sweep for the files to spoil")
    setup_run([opts.commsweep, "baseline", run_json, "-o", base_json], "its baseline")
    with open(run_json) as f:
        good_results = f.read()
    with open(base_json) as f:
        good_baseline = f.read()
    cases.make_files(w, good_results, good_baseline, listener_url)
    os.makedirs(os.path.join(w, "history"))
    cases.make_output_nodes(w)
    keep = {}
    for name in ("md", "json", "html", "prom", "baseline", "suite"):
        keep[name] = os.path.join(keep_dir, "kept." + name)
        with open(keep[name], "wb") as f:
            f.write(SENTINEL)
    setup_run([opts.commsweep, "compare", os.path.join(w, "good.json"), "--baseline",
               os.path.join(w, "good_baseline.json"), "--history", os.path.join(w, "history"),
               "--record", "--quiet"], "recording the run in the history")
    return w, keep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--commsweep", "--scripts", "--fixtures", "--suites", "--workdir"):
        parser.add_argument(name, required=True)
    parser.add_argument("--mpiexec", default="mpiexec", help="for the cases of several ranks")
    parser.add_argument("--only", default="", help="run only the cases whose group or label holds this text")
    opts = parser.parse_args()
    for name in ("commsweep", "scripts", "fixtures", "suites", "workdir"):
        setattr(opts, name, os.path.abspath(getattr(opts, name)))
    os.makedirs(opts.workdir, exist_ok=True)
    # An address only this test listens on: an external entity or DTD that were fetched would
    # connect here (loopback; the port the kernel gives).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    listener_url = "http://127.0.0.1:%d" % listener.getsockname()[1]
    w, keep = prepare(opts, listener_url)
    all_cases = (cases.flag_cases(opts, w) + cases.regress_cases(opts, w, keep) +
                 cases.suite_cases(opts, w, keep) + cases.topology_cases(opts, w, listener_url) +
                 cases.hostfile_cases(opts, w) + cases.env_cases(opts, w) +
                 cases.transport_cases(opts, w) + cases.health_cases(opts, w) + cases.health_file_cases(opts, w) +
                 cases.newcomer_cases(opts, w) + cases.run_settings_cases(opts, w) +
                 cases.surprise_cases(opts, w, keep) + cases.nvlink_cases(opts, w) +
                 cases.first_walk_cases(opts, w))
    all_cases = [c for c in all_cases if opts.only in c.group or opts.only in c.label]
    fail = Failures()
    rows = [run_case(opts, c, listener, fail) for c in all_cases]
    listener.close()
    if os.path.exists(os.path.join(w, "pwned")):
        fail.check(False, "a hostfile's shell command ran ($W/files/pwned exists)")
    table = ["| input | case | command ($W: the test's folder) | exit | s | what the user saw | verdict |",
             "|---|---|---|---|---|---|---|"] + rows
    with open(os.path.join(opts.workdir, "bad_inputs.md"), "w") as f:
        f.write("\n".join(table) + "\n")
    print("\n".join(table))
    return verdict(fail, "%d bad inputs refused, named, nothing written" % len(rows), "", "")


if __name__ == "__main__":
    sys.exit(main())
