#!/usr/bin/env python3
"""commsweep nvlink where there is no GPU (the CI machine), and its offline judge:

- `mpiexec -n 2 commsweep nvlink` exits 2 with one line saying why (no GPU here, or a build
  without CUDA) and what to do (one rank per GPU on GPU nodes), and writes no --json;
- `commsweep nvlink --judge FIXTURE --json OUT` (no mpirun) exits 0 on the captured matrix, its OUT
  valid against the filled schema and equal to the fixture (the fixture is the command's format);
- the same file with one pair slowed 4x (what --fault slow-pair:1,2 does on a GPU) exits 10 and
  names that pair alone, both GPUs with their PCI bus ids.

    nvlink_check.py --commsweep BIN --mpiexec MPIEXEC --schema FILLED.json --fixture FILE --workdir DIR
"""
import argparse
import copy
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
from results_json import validate  # noqa: E402


def mpiexec_args(mpiexec, n):
    args = [mpiexec, "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        args.append("--allow-run-as-root")
    return args


def run(args, workdir, name):
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    with open(os.path.join(workdir, name + ".stdout.txt"), "w") as f:
        f.write(r.stdout)
    with open(os.path.join(workdir, name + ".stderr.txt"), "w") as f:
        f.write(r.stderr)
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("--commsweep", "--mpiexec", "--schema", "--fixture", "--workdir"):
        p.add_argument(flag, required=True)
    o = p.parse_args()
    os.makedirs(o.workdir, exist_ok=True)
    problems = []

    out = os.path.join(o.workdir, "refused.json")
    r = run(mpiexec_args(o.mpiexec, 2) + [o.commsweep, "nvlink", "--json", out], o.workdir, "refused")
    lines = [l for l in r.stderr.splitlines() if l.startswith("commsweep")]
    if r.returncode != 2:
        problems.append("no GPU: exit %d, not 2" % r.returncode)
    if len(lines) != 1 or "nvlink: rank 0 (host " not in lines[0] or \
            "run it under mpirun with one rank per GPU on GPU nodes" not in lines[0]:
        problems.append("no GPU: not one line saying why and what to do: %r" % lines)
    if os.path.exists(out):
        problems.append("no GPU: %s was written" % out)

    schema = json.load(open(o.schema))
    fixture = json.load(open(o.fixture))
    judged = os.path.join(o.workdir, "judged.json")
    r = run([o.commsweep, "nvlink", "--judge", o.fixture, "--json", judged], o.workdir, "judge")
    if r.returncode != 0:
        problems.append("--judge on the capture: exit %d, not 0: %s" % (r.returncode, r.stderr[-300:]))
    else:
        doc = json.load(open(judged))
        problems += ["--judge's JSON: " + e for e in validate(doc, schema, schema)]
        problems += ["the fixture: " + e for e in validate(fixture, schema, schema)]
        if doc != fixture:
            problems.append("--judge's JSON is not the fixture (the fixture must be the command's format)")
        if "# ce_write GB/s, rows src, columns dst" not in r.stdout or "no slow pair" not in r.stdout:
            problems.append("--judge on the capture: no matrix or verdict:\n" + r.stdout)

    slowed = copy.deepcopy(fixture)
    for pair in slowed["nodes"][0]["pairs"]:
        if {pair["src"], pair["dst"]} == {1, 2}:
            pair["gbps"] = {k: v / 4 for k, v in pair["gbps"].items()}
    planted = os.path.join(o.workdir, "planted.json")
    json.dump(slowed, open(planted, "w"))
    r = run([o.commsweep, "nvlink", "--judge", planted], o.workdir, "planted")
    gpus = fixture["nodes"][0]["gpus"]
    named = [l for l in r.stdout.splitlines() if l.startswith("# SLOW")]
    want = ["GPU 1 (rank 1, %s) -> GPU 2 (rank 2, %s)" % (gpus[1]["pci_bus_id"], gpus[2]["pci_bus_id"]),
            "GPU 2 (rank 2, %s) -> GPU 1 (rank 1, %s)" % (gpus[2]["pci_bus_id"], gpus[1]["pci_bus_id"])]
    if r.returncode != 10:  # slow (docs/failures.md)
        problems.append("planted slow pair: exit %d, not 10" % r.returncode)
    if len(named) != 2 or not all(any(w in l for l in named) for w in want):
        problems.append("planted slow pair: not named alone: %r" % named)

    for line in problems:
        print("FAIL " + line)
    print("nvlink_check: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
