#!/usr/bin/env python3
"""A workload is one file: commsweep_probe is commsweep with one more, tests/workloads/probe.cpp,
and nothing else. This finds it everywhere the registry reaches: `commsweep list`, `--help` (the
commands, and its own --help from its settings table), a suite file's `kind: probe` run on two
ranks (its rows in the results, valid against the filled schema), and `commsweep schema` (the
rows' and the baseline's test enums). It also shows the product binary (--commsweep) without it.
"""
import argparse
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import launcher  # noqa: E402
from results_json import validate  # noqa: E402


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90)


def problems(opts):
    found = []
    listed = run([opts.probe, "list"]).stdout.splitlines()
    if not any(line.split()[:1] == ["probe"] for line in listed):
        found.append("`list` does not name probe: %s" % listed)
    if "probe" in run([opts.commsweep, "list"]).stdout:
        found.append("the product's `commsweep list` names the test-only probe")
    if "\n  probe " not in run([opts.probe, "--help"]).stdout:
        found.append("`--help` lists no probe command")
    own = run([opts.probe, "probe", "--help"])
    if own.returncode != 0 or "--rounds" not in own.stdout or "--backend" not in own.stdout:
        found.append("`probe --help` lacks its --rounds or the run's --backend: %s" % own.stdout[:300])
    schemas = {}
    for name in ("results", "baseline"):
        schemas[name] = json.loads(run([opts.probe, "schema", name]).stdout)
    rows = schemas["results"]["$defs"]["row"]["properties"]["test"]["enum"]
    baseline = json.dumps(schemas["baseline"])
    if "probe" not in rows or '"probe"' not in baseline:
        found.append("`schema` has no probe in the tests' enums: rows %s" % rows)
    os.makedirs(opts.workdir, exist_ok=True)
    suite = os.path.join(opts.workdir, "probe-suite.yaml")
    results = os.path.join(opts.workdir, "probe-suite.json")
    with open(suite, "w") as f:
        f.write("- name: probing\n  kind: probe\n  rounds: 2\n"
                "- name: small\n  kind: collective\n  tests: all_reduce\n  max_bytes: 1K\n")
    job = run(launcher(opts.mpiexec, 2) + [opts.probe, "suite", suite, "--backend", "mpi", "--no-preflight",
                                           "--json", results])
    if job.returncode != 0 or "# Suite sweep 1 of 2: probing (probe)" not in job.stdout:
        found.append("the suite with kind: probe: exit %d\n%s\n%s" % (job.returncode, job.stdout, job.stderr))
        return found
    with open(results) as f:
        doc = json.load(f)
    probed = [r for r in doc["rows"] if r["test"] == "probe"]
    if len(probed) != 2 or any(r["out_of_place"]["wrong"] != 0 for r in probed):
        found.append("the results hold %d probe rows (2 expected, none wrong): %s" % (len(probed), probed))
    errors = validate(doc, schemas["results"], schemas["results"])
    if errors:
        found.append("the suite's results against the filled schema: %s" % errors[:5])
    return found


def check_main(name, description, find_problems, passed):
    """A test-only workload's check: --probe, --commsweep, --mpiexec, --workdir; each problem
    FIND_PROBLEMS(opts) finds on a line of its own (exit 1), else PASSED (exit 0)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--probe", required=True, help="commsweep_probe")
    p.add_argument("--commsweep", required=True, help="the product's commsweep")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--workdir", required=True)
    opts = p.parse_args()
    found = find_problems(opts)
    for line in found:
        print("%s: %s" % (name, line))
    if not found:
        print("%s: %s" % (name, passed))
    return 1 if found else 0


def main():
    return check_main("probe_check", __doc__, problems,
                      "probe found by list, --help, a suite's kind: and the schema; run, its rows valid")


if __name__ == "__main__":
    sys.exit(main())
