#!/usr/bin/env python3
"""A workload with matrix results is one file (issue 43): commsweep_probe's test-only `grid`
(tests/workloads/grid.cpp), a value per ordered rank pair, goes through the one result model with
no line of its own in src/report/, src/regress/ or the keepers. On 2 ranks of the mpi backend:
printed; kept in its --json file (commsweep.grid/1); a SIGTERM mid-run leaves the rows so far,
complete: false; two identical runs baselined and compared exit 0; a planted drop of one pair
(--drop 0:1:12) exits 9 (regression) naming the pair, and its --html and --prometheus (the printers
written once over figures, src/report/sheet_*) show its pairs; its CSV has one row per pair. The product's
commsweep does not know the schema (exit 2). In a suite (`kind: grid` beside a collective sweep):
one results file holding the rows and, under "documents", the grid's document; compared with the
alone runs' baseline it exits 0, and with the drop planted in the suite's sweep 9, naming the pair.
"""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_check import check_main  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import launcher  # noqa: E402


def run(cmd, timeout=90):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def grid(opts, name, *extra):
    path = os.path.join(opts.workdir, name)
    job = run(launcher(opts.mpiexec, 2) + [opts.probe, "grid", "--backend", "mpi", "--no-preflight", "--json", path]
              + list(extra))
    return job, path


def interrupted(opts, found):
    """SIGTERM to mpirun once the first row is printed: the file keeps it, complete: false."""
    path = os.path.join(opts.workdir, "grid-term.json")
    out = open(os.path.join(opts.workdir, "grid-term.out"), "w+")
    proc = subprocess.Popen(launcher(opts.mpiexec, 2) + [opts.probe, "grid", "--backend", "mpi", "--no-preflight",
                                                         "--pause-ms", "3000", "--json", path],
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        out.seek(0)
        if "  0:" in out.read():
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        found.append("grid did not stop within 60 s of SIGTERM")
        return
    out.seek(0)
    text = out.read()
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        found.append("SIGTERM mid-run left no readable %s (%s): %s" % (path, e, text[-600:]))
        return
    if doc.get("complete") is not False or not doc.get("interrupted_by") or len(doc.get("pairs", [])) < 1 \
            or len(doc["pairs"]) >= 2:
        found.append("SIGTERM mid-run: complete %s, interrupted_by %s, %d pairs (1 expected)"
                     % (doc.get("complete"), doc.get("interrupted_by"), len(doc.get("pairs", []))))
    print("grid_check: SIGTERM after the first row: exit %d, %d pair kept, complete: false"
          % (proc.returncode, len(doc.get("pairs", []))))


def reports(job, html_path, prom_path, found):
    """--html and --prometheus of the planted drop, by the printers written once over figures."""
    try:
        with open(html_path) as f:
            html = f.read()
        with open(prom_path) as f:
            prom = f.read()
    except OSError as e:
        found.append("grid --html/--prometheus: exit %d, %s\n%s" % (job.returncode, e, job.stderr[-600:]))
        return
    # 0 -> 1 at 10.5 GB/s less 12%; 1 -> 0 at 11 (grid.cpp's synthetic values).
    want_html = ["<h2>bandwidth</h2>", "<svg", "<title>0 -&gt; 1: 9.24 GB/s", "<title>1 -&gt; 0: 11.00 GB/s",
                 "<p>The 2 lowest of 2 figures against their median (0 slow).</p>"]
    want_prom = ["# TYPE commsweep_grid_bandwidth_gbps gauge", 'commsweep_grid_bandwidth_gbps{src="0",dst="1"} 9.24\n',
                 'commsweep_grid_bandwidth_gbps{src="1",dst="0"} 11\n', "commsweep_grid_complete{} 1\n",
                 "commsweep_grid_exit_code{} 0\n"]
    missing = [w for w in want_html if w not in html] + [w for w in want_prom if w not in prom]
    if missing or "<script" in html:
        found.append("grid --html/--prometheus lack %s\n%s\n%s" % (missing, html[-1500:], prom))
    else:
        print("grid_check: --html (a heatmap, the lowest pairs) and --prometheus (%d samples) from its figures"
              % sum(1 for line in prom.splitlines() if line and not line.startswith("#")))


SUITE = """- kind: grid
  name: pairs-grid
%s- kind: collective
  tests: [all_reduce]
  max_bytes: 1K
"""


def in_suite(opts, found, base):
    """The grid as a suite's sweep: its document in the results file, judged like the alone file's."""
    for name, drop in (("suite-same", ""), ("suite-drop", "  drop: \"0:1:12\"\n")):
        suite = os.path.join(opts.workdir, name + ".yaml")
        with open(suite, "w") as f:
            f.write(SUITE % drop)
        path = os.path.join(opts.workdir, name + ".json")
        job = run(launcher(opts.mpiexec, 2) + [opts.probe, "suite", suite, "--backend", "mpi", "--no-preflight",
                                               "--json", path])
        if job.returncode != 0 or "# Suite sweep 1 of 2: pairs-grid (grid)" not in job.stdout \
                or "# grid: 2 pairs" not in job.stdout:
            found.append("suite %s: exit %d\n%s\n%s" % (name, job.returncode, job.stdout[-800:], job.stderr[-800:]))
            return
        with open(path) as f:
            doc = json.load(f)
        documents = doc.get("documents", [])
        if doc.get("schema") != "commsweep.results/2" or not any(r["test"] == "all_reduce" for r in doc.get("rows", [])) \
                or len(documents) != 1 or documents[0].get("schema") != "commsweep.grid/1" \
                or len(documents[0].get("pairs", [])) != 2:
            found.append("suite %s's results: %s" % (name, json.dumps(doc)[:400]))
            return
        job = run([opts.probe, "compare", path, "--baseline", base])
        want = 9 if drop else 0
        if job.returncode != want or (drop and "rank 0 -> rank 1" not in job.stdout):
            found.append("suite %s compared: exit %d (%d expected)\n%s" % (name, job.returncode, want, job.stdout[-800:]))
        else:
            print("grid_check: in a suite, %s compared: exit %d" % (name, job.returncode))


def problems(opts):
    found = []
    os.makedirs(opts.workdir, exist_ok=True)
    runs = []
    for name in ("grid-a.json", "grid-b.json"):
        job, path = grid(opts, name)
        if job.returncode != 0 or "  0:" not in job.stdout or "# grid: 2 pairs" not in job.stdout:
            found.append("grid %s: exit %d\n%s\n%s" % (name, job.returncode, job.stdout, job.stderr))
            return found
        runs.append(path)
    with open(runs[0]) as f:
        doc = json.load(f)
    if doc.get("schema") != "commsweep.grid/1" or doc.get("complete") is not True or len(doc.get("pairs", [])) != 2:
        found.append("the kept file: %s" % json.dumps(doc)[:400])
    base = os.path.join(opts.workdir, "grid-baseline.json")
    job = run([opts.probe, "baseline", runs[0], "-o", base])
    if job.returncode != 0 or "2 measurements" not in job.stdout:
        found.append("baseline: exit %d: %s %s" % (job.returncode, job.stdout, job.stderr))
        return found
    job = run([opts.probe, "compare", runs[1], "--baseline", base])
    if job.returncode != 0:
        found.append("identical runs compared: exit %d (0 expected)\n%s" % (job.returncode, job.stdout[-800:]))
    html, prom = (os.path.join(opts.workdir, "grid-drop." + ext) for ext in ("html", "prom"))
    job, dropped = grid(opts, "grid-drop.json", "--drop", "0:1:12", "--html", html, "--prometheus", prom)
    reports(job, html, prom, found)
    job = run([opts.probe, "compare", dropped, "--baseline", base])
    failed = [line for line in job.stdout.splitlines() if "FAIL" in line and "rank 0 -> rank 1" in line]
    if job.returncode != 9 or not failed or "rank 1 -> rank 0" in "".join(failed):
        found.append("the planted drop of rank 0 -> rank 1: exit %d (9 expected)\n%s" % (job.returncode, job.stdout[-800:]))
    else:
        print("grid_check: the planted drop: exit 9, " + failed[0].strip())
    job = run([opts.probe, "csv", runs[0], dropped])
    rows = list(csv.DictReader(io.StringIO(job.stdout, newline="")))
    if job.returncode != 0 or len(rows) != 4 or {r["workload"] for r in rows} != {"grid"} \
            or {(r["src"], r["dst"]) for r in rows} != {("0", "1"), ("1", "0")}:
        found.append("csv: exit %d, %d rows: %s" % (job.returncode, len(rows), rows[:2]))
    product = run([opts.commsweep, "csv", runs[0]])
    if product.returncode != 2 or "commsweep.grid/1" not in product.stderr:
        found.append("the product's csv of a grid file: exit %d (2 expected): %s" % (product.returncode, product.stderr))
    in_suite(opts, found, base)
    interrupted(opts, found)
    return found


def main():
    return check_main("grid_check", __doc__, problems,
                      "grid printed, kept, baselined, compared and written as CSV through the one model")


if __name__ == "__main__":
    sys.exit(main())
