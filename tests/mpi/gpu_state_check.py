#!/usr/bin/env python3
"""The GPU state of every measured window, planted through recorded NVML samples (issue 45
part 2): each of a throttle, a clock drift and a power drift on rank 1's GPU is named alone, in
the output and in the JSON; without a recording the mpi backend reads no GPU and says so once.
A trained-down NVLink on rank 1's GPU, planted the same way, is named alone by the health block.

    gpu_state_check.py --commsweep BIN --mpiexec MPIEXEC --fixtures tests/fixtures/gpu_state \
        --health-fixtures tests/fixtures/health --results-schema SCHEMA --pairs-schema SCHEMA --workdir DIR

Each case is a real `all_reduce` sweep of 2 ranks on the mpi backend (8 B - 1 KiB, one host):
COMMSWEEP_NVML_RECORDING=<fixture> makes local rank r read the recording's GPU r
(tests/fixtures/gpu_state/README.md says what each file plants on GPU 1).
  throttle     "GPU throttled: rank 1 (host H, GPU 1) was held by power cap (up to 87% ...)";
               every half of every row has both ranks' windows, rank 1's with power cap 0.87
  clock        "GPU clock drift: rank 1 (host H, GPU 1) ... 1200 MHz ..."; rank 1's sm_mhz_end 1200
  power        "GPU power drift: rank 1 (host H, GPU 1) drew 500 W ..."; rank 1's power_w 500
               from the energy counter
  none         no recording: "# GPU state per window: not read: the mpi backend uses no GPU"
               once, no gpu_state in the JSON
  ep           `commsweep ep` (16 and 32 tokens, small shapes) on the throttle's recording: the
               finding names rank 1 over "the 16-32 tokens ep ... rows"; each row's gpu_state
               has both ranks' windows
  nvlink       the health snapshots on (COMMSWEEP_SYSFS_ROOT: the healthy IB tree) read the
               recording too (nvlink-trained-down-rank1.json: GPU 1 has 12 of 18 links active):
               "#   WARN H NVLink: GPU 1 NVLinks mode reduced: 12 of 18 links active ..." the one
               finding, on the block's summary of 2 GPUs, 30/36 NVLinks; nothing of GPU 0, no
               throttle or drift; in the JSON one health finding, nvlink_reduced, summary.ok true
  pairs        `commsweep pairs` on 3 emulated nodes of 1 rank (scripts/emulate-nodes.sh), rank 1
               slowed (--fault slow-rank:1, as mpi.pairs.np3.slow_node_three_nodes) and its GPU
               throttled (throttle-rank1-of-3.json): exit 10 for its two slow pairs, each laid at
               "GPU throttled: rank 1 (...) was held by power cap (87% of the window) during the
               N0-N1 (N1-N2) pair's exchange in round R"; every pair's gpu_state has its two ranks'
               windows; the document validates against the pairs schema.
The sweeps exit 0 (the state is evidence, not a verdict; nvlink_reduced is a WARN, which changes
no exit code: docs/failures.md) and their JSON validates against the schema.
Standard library only.
"""
import argparse
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
from commsweep_check import REPO, Failures, launcher, run, verdict  # noqa: E402
from results_json import validate  # noqa: E402

BOUND_S = 60  # each sweep takes a second or two
KINDS = ("GPU throttled: ", "GPU clock drift: ", "GPU power drift: ")
CASES = (  # name, fixture, the finding's start, what rank 1's window holds
    ("throttle", "throttle-rank1.json", "GPU throttled: rank 1 (host {host}, GPU 1) was held by power cap (up to 87% of the window)",
     lambda w: any(t["reason"] == "power cap" and abs(t["share"] - 0.87) < 1e-9 for t in w["throttles"])),
    ("clock", "clock-drift-rank1.json", "GPU clock drift: rank 1 (host {host}, GPU 1) ran its SM clock at 1200 MHz",
     lambda w: w["sm_mhz_end"] == 1200 and not w["throttles"]),
    ("power", "power-drift-rank1.json", "GPU power drift: rank 1 (host {host}, GPU 1) drew 500 W",
     lambda w: abs(w["power_w"] - 500) < 1e-9 and w["power_from"] == "energy"),
    ("none", None, None, None),
    ("ep", "throttle-rank1.json", "GPU throttled: rank 1 (host {host}, GPU 1) was held by power cap (up to 87% of the window) "
     "during the 16-32 tokens ep alltoallv",
     lambda w: any(t["reason"] == "power cap" for t in w["throttles"])),
)
# The health snapshots' case: GPU 1 of the recording has 12 of its 18 links active.
NVLINK_FIXTURE = "nvlink-trained-down-rank1.json"
NVLINK_FINDING = ("#   WARN {host} NVLink: GPU 1 NVLinks mode reduced: 12 of 18 links active (H200 SXM has 18 at NVLink 4.0); "
                  "inactive: 12-17")
SWEEP = ["all_reduce", "-b", "8", "-e", "1K", "-n", "2", "-w", "1"]
EP = ["ep", "--tokens", "16,32", "--hidden", "64", "--experts", "8", "--topk", "2", "-n", "2", "-w", "1"]


def run_case(opts, fail, schema, name, fixture, sysfs=None):
    """SYSFS: the health snapshots read this tree and the recording; else they are off."""
    work = os.path.join(opts.workdir, name)
    os.makedirs(work)
    results = os.path.join(work, "r.json")
    env = {k: v for k, v in os.environ.items() if k not in ("COMMSWEEP_NVML_RECORDING", "COMMSWEEP_HEALTH")}
    if sysfs:
        env["COMMSWEEP_SYSFS_ROOT"] = sysfs
    else:
        env["COMMSWEEP_HEALTH"] = "0"  # the window cases leave the snapshots to the nvlink case
    if fixture:
        env["COMMSWEEP_NVML_RECORDING"] = os.path.join(opts.fixtures, fixture)
    os.environ.clear()
    os.environ.update(env)
    cmd = launcher(opts.mpiexec, 2) + [opts.commsweep] + (EP if name == "ep" else SWEEP) + [
        "--backend", "mpi", "--no-preflight", "--json", results]
    rc, out, err, _, timed_out = run(cmd, BOUND_S, work)
    fail.check(not timed_out and rc == 0, "%s: exit %s%s: %s" % (name, rc, " (timed out)" if timed_out else "", err[-300:]))
    try:
        with open(results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail.check(False, "%s: %s: %s" % (name, results, e))
        return out, err, {}
    errors = validate(doc, schema, schema)
    fail.check(not errors, "%s: the results JSON does not validate: %s" % (name, errors[:5]))
    return out, err, doc


PAIRS = ["pairs", "--backend", "mpi", "-s", "1M", "-n", "20", "-w", "2", "--fault", "slow-rank:1", "--fault-slowdown", "100"]


def pairs_case(opts, fail):
    """The pairs case (the docstring): rank 1's slow pairs laid at its throttled GPU."""
    work = os.path.join(opts.workdir, "pairs")
    os.makedirs(work)
    results = os.path.join(work, "pairs.json")
    os.environ["COMMSWEEP_NVML_RECORDING"] = os.path.join(opts.fixtures, "throttle-rank1-of-3.json")
    os.environ["COMMSWEEP_RANKS_PER_NODE"] = "1"
    os.environ["COMMSWEEP_HEALTH"] = "0"
    cmd = launcher(opts.mpiexec, 3) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), opts.commsweep] + PAIRS + [
        "--no-preflight", "--json", results]
    rc, out, err, _, timed_out = run(cmd, BOUND_S, work)
    fail.check(not timed_out and rc == 10, "pairs: exit %s, 10 expected%s: %s" % (rc, " (timed out)" if timed_out else "", err[-300:]))
    try:
        with open(results) as f:
            doc = json.load(f)
        with open(opts.pairs_schema) as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        fail.check(False, "pairs: %s" % e)
        return out, err
    errors = validate(doc, schema, schema)
    fail.check(not errors, "pairs: the document does not validate: %s" % errors[:5])
    slow = sorted(tuple(sorted(p)) for p in doc["summary"]["slow_pairs"])
    fail.check(slow == [(0, 1), (1, 2)], "pairs: slow pairs %s, expected N0-N1 and N1-N2" % slow)
    found = [l[2:] for l in out.splitlines() if l.startswith("# GPU throttled: ")]
    fail.check(len(found) == 2 and all(f.startswith("GPU throttled: rank 1 (") and
                                       "was held by power cap (87% of the window) during the N" in f and
                                       "pair's exchange in round" in f for f in found),
               "pairs: expected rank 1 named once per slow pair, got %s" % found)
    fail.check(doc["summary"].get("gpu_state_findings") == found, "pairs: the summary's gpu_state_findings %s" %
               doc["summary"].get("gpu_state_findings"))
    for p in doc["pairs"]:
        ranks = sorted(w["rank"] for w in p.get("gpu_state", []))
        expected = sorted([p["node_a"], p["node_b"]])  # one rank a node: rank = node
        fail.check(ranks == expected, "pairs: pair %s-%s's windows of ranks %s" % (p["node_a"], p["node_b"], ranks))
    fail.check(any("GPU state per window: read at each window's two ends" in l for l in out.splitlines()),
               "pairs: no line saying what the reads cost")
    return out, err


def check_trained_down(opts, fail, schema):
    """The nvlink case: GPU 1's 12 of 18 links named alone by the health block, a WARN (exit 0)."""
    out, err, doc = run_case(opts, fail, schema, "nvlink", NVLINK_FIXTURE, os.path.join(opts.health_fixtures, "ib_healthy"))
    host = (doc.get("provenance", {}).get("hosts") or ["?"])[0]
    lines = out.splitlines()
    summary = [l for l in lines if l.startswith("# Health: ")]
    fail.check(len(summary) == 1 and "2 GPUs, 30/36 NVLinks active" in summary[0] and ": 0 FAIL, 1 WARN on " in summary[0],
               "nvlink: expected one health summary with 2 GPUs, 30/36 NVLinks and 1 WARN, got %s" % summary)
    named = [l for l in lines if l.startswith(("#   WARN ", "#   FAIL ", "#   INFO "))]
    expected = NVLINK_FINDING.replace("{host}", host)
    fail.check(len(named) == 1 and named[0].startswith(expected), "nvlink: expected the one finding '%s...', got %s" % (expected, named))
    fail.check(not any(l.startswith("# " + k) for l in lines for k in KINDS), "nvlink: a throttle or drift finding: %s" % lines)
    findings = doc.get("health", {}).get("findings", [])
    fail.check([(f.get("severity"), f.get("component"), f.get("rule")) for f in findings] == [("WARN", "GPU 1 NVLinks", "nvlink_reduced")],
               "nvlink: the JSON's health findings %s" % findings)
    fail.check(doc.get("summary", {}).get("ok") is True, "nvlink: summary %s (a WARN is no failure)" % doc.get("summary"))
    halves = [row[h] for row in doc.get("rows", []) for h in ("out_of_place", "in_place")]
    fail.check(len(halves) == 16 and all([w["rank"] for w in h.get("gpu_state", [])] == [0, 1] and
                                         not any(w["throttles"] for w in h["gpu_state"]) for h in halves),
               "nvlink: the windows are not both ranks' without a throttle")
    return out, err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--commsweep", "--mpiexec", "--fixtures", "--health-fixtures", "--results-schema", "--pairs-schema", "--workdir"):
        ap.add_argument(flag, required=True)
    opts = ap.parse_args()
    shutil.rmtree(opts.workdir, ignore_errors=True)
    os.makedirs(opts.workdir)
    with open(opts.results_schema) as f:
        schema = json.load(f)
    fail = Failures()
    out = err = ""
    for name, fixture, finding, window in CASES:
        out, err, doc = run_case(opts, fail, schema, name, fixture)
        host = (doc.get("provenance", {}).get("hosts") or ["?"])[0]
        findings = [l for l in out.splitlines() if any(l.startswith("# " + k) for k in KINDS)]
        if name == "ep":
            halves = doc.get("ep_rows", [])
            fail.check(len(halves) == 2, "ep: %d rows in the JSON, expected 2" % len(halves))
        else:
            halves = [row[h] for row in doc.get("rows", []) for h in ("out_of_place", "in_place")]
            fail.check(len(halves) == 16, "%s: %d halves in the JSON, expected 8 rows x 2" % (name, len(halves)))
        if not fixture:
            said = [l for l in out.splitlines() if "GPU state per window: not read: the mpi backend uses no GPU" in l]
            fail.check(len(said) == 1, "none: 'GPU state per window: not read' said %d times, not once" % len(said))
            fail.check(not findings, "none: findings without a GPU: %s" % findings)
            fail.check(all("gpu_state" not in h for h in halves), "none: gpu_state in the JSON without a GPU")
            continue
        expected = finding.replace("{host}", host)
        fail.check(len(findings) == 1 and findings[0].startswith("# " + expected),
                   "%s: expected the one finding '%s...', got %s" % (name, expected, findings))
        for i, h in enumerate(halves):
            ws = h.get("gpu_state", [])
            if not fail.check([w["rank"] for w in ws] == [0, 1], "%s: half %d: windows of ranks %s" % (name, i, [w["rank"] for w in ws])):
                break
            fail.check(window(ws[1]) and not ws[0]["throttles"], "%s: half %d: rank 1's window %s" % (name, i, ws[1]))
        fail.check(any("GPU state per window: read at each window's two ends" in l for l in out.splitlines()),
                   "%s: no line saying what the reads cost" % name)
    out, err = check_trained_down(opts, fail, schema)
    # Last: it sets COMMSWEEP_HEALTH=0 and COMMSWEEP_RANKS_PER_NODE for its emulated nodes.
    out, err = pairs_case(opts, fail)
    return verdict(fail, "a throttle, a clock drift, a power drift and a trained-down NVLink planted on rank 1's GPU are "
                   "each named alone, in the output and the JSON; without a GPU nothing is read, said once; pairs' "
                   "slow pairs of a throttled rank are laid at it", out, err)


if __name__ == "__main__":
    sys.exit(main())
