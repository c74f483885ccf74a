#!/usr/bin/env python3
"""A fault planted in the hardware's counters during a real `commsweep pairs` run on the mpi
backend, and the final report naming it with the slow pair.

    health_check.py --commsweep BIN --mpiexec MPIEXEC --fixtures tests/fixtures/health \
        --results-schema SCHEMA --pairs-schema SCHEMA --workdir DIR

3 emulated nodes of 2 ranks (scripts/emulate-nodes.sh); each node reads its own copy of the
healthy 2-NIC IB fixture tree (COMMSWEEP_SYSFS_ROOT=<workdir>/trees/<node>, set per rank by a
wrapper). Rank 3 (node1's) is slowed with the testing-only --fault slow-rank:3, so node1's
pairs are slow. Once the job has printed its first round, this checker edits node1's tree as a
flapping cable would (mlx5_1 port 1: link_downed +1, symbol_error +412, link_error_recovery +3,
state ACTIVE -> DOWN) and then creates the file the readers wait for before their after
snapshot (COMMSWEEP_HEALTH_AFTER_WAITS_FOR, at most 30 s): the change is inside the run, and
the run cannot end before it. Checked: exit 6 (the health FAIL, which comes before the slow
pairs' 10: docs/failures.md); the health block on stdout with the FAIL line for host/node1
mlx5_1 port 1; an Evidence line naming that component with a slow pair of node1; nothing found
on node0 and node2; the JSON (pairs schema) holds the same findings and verdict, both snapshots
of every node, its summary not ok with the slow pairs and node1's link_downed in health_fail,
and is valid. Standard library only.
"""
import argparse
import json
import os
import shutil
import sys
import time

sys.dont_write_bytecode = True
from commsweep_check import REPO, Failures, launcher, start_job, finish_job, verdict  # noqa: E402
from results_json import validate  # noqa: E402

HEALTH_FAIL_EXIT = 6  # before the slow pairs' 10 (docs/failures.md)
NODES = 3
PER_NODE = 2
SLOW_RANK = 3  # node1
BOUND_S = 150  # the whole job; the pairs themselves take seconds


def plant(tree):
    """What a flapping cable leaves in sysfs, in the kernel's formats."""
    port = os.path.join(tree, "sys/class/infiniband/mlx5_1/ports/1")
    for name, value in (("link_downed", "1"), ("symbol_error", "412"), ("link_error_recovery", "3")):
        with open(os.path.join(port, "counters", name), "w") as f:
            f.write(value + "\n")
    with open(os.path.join(port, "state"), "w") as f:
        f.write("1: DOWN\n")
    with open(os.path.join(port, "phys_state"), "w") as f:
        f.write("2: Polling\n")


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--commsweep", "--mpiexec", "--fixtures", "--results-schema", "--pairs-schema", "--workdir"):
        ap.add_argument(flag, required=True)
    opts = ap.parse_args()
    shutil.rmtree(opts.workdir, ignore_errors=True)
    os.makedirs(opts.workdir)
    trees = os.path.join(opts.workdir, "trees")
    for n in range(NODES):
        shutil.copytree(os.path.join(opts.fixtures, "ib_flapped", "before"), os.path.join(trees, "node%d" % n),
                        symlinks=True)
    wrapper = os.path.join(opts.workdir, "per-node-sysfs.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n# Each emulated node reads its own tree.\n'
                'COMMSWEEP_SYSFS_ROOT="%s/$NCCL_HOSTID" exec "$@"\n' % trees)
    os.chmod(wrapper, 0o755)
    go = os.path.join(opts.workdir, "planted")
    results = os.path.join(opts.workdir, "pairs.json")
    os.environ.update({"COMMSWEEP_RANKS_PER_NODE": str(PER_NODE), "COMMSWEEP_HEALTH_AFTER_WAITS_FOR": go})
    cmd = launcher(opts.mpiexec, NODES * PER_NODE) + [
        os.path.join(REPO, "scripts", "emulate-nodes.sh"), wrapper, opts.commsweep, "pairs", "--backend", "mpi",
        "-s", "1M", "-n", "20", "-w", "2", "--slow-below", "0.25", "--fault", "slow-rank:%d" % SLOW_RANK,
        "--json", results]
    fail = Failures()
    until = time.monotonic() + BOUND_S
    proc, files = start_job(cmd, opts.workdir)
    stdout_path = os.path.join(opts.workdir, "stdout.txt")
    planted = False
    while time.monotonic() < until and proc.poll() is None:
        with open(stdout_path) as f:
            if any(line.startswith("# round 1 of ") for line in f.read().splitlines()):
                plant(os.path.join(trees, "node1"))
                open(go, "w").close()
                planted = True
                break
        time.sleep(0.05)
    rc, out, err = finish_job(proc, files, opts.workdir, until, fail.messages, "the job outlived %d s" % BOUND_S)
    fail.check(planted, "the first round was never printed: nothing was planted")
    fail.check(rc == HEALTH_FAIL_EXIT, "exit %s, expected %d (a health FAIL, with slow pairs)" % (rc, HEALTH_FAIL_EXIT))
    # One line per node and component class: "#   FAIL host/node1 RDMA: mlx5_1 port 1 state ...".
    node1 = [l for l in out.splitlines() if "/node1 RDMA: mlx5_1 port 1 " in l]
    fail.check(any(l.startswith("#   FAIL ") and "link_downed +1, " in l and "symbol_error +412, " in l
                   and "link_error_recovery +3, " in l and "state ACTIVE -> DOWN" in l
                   and "(any rise fails, IBTA, GCM)" in l and "(limit 0.1/s, IBTA BER)" in l for l in node1),
               "no FAIL line for node1 mlx5_1 port 1 with its moved counters, rates and limits in the health block")
    fail.check(any(l.startswith("# Health: 3 nodes, before/after ") and ": 2 FAIL, 2 WARN on " in l
                   and l.split(": 2 FAIL, 2 WARN on ")[1].endswith("/node1") for l in out.splitlines()),
               "no summary line naming node1, and node1 alone, with its 2 FAIL and 2 WARN")
    evidence = [l for l in out.splitlines() if l.startswith("# Evidence: ")]
    named = [l for l in evidence if "/node1 mlx5_1 port 1: " in l and "symbol_error +412" in l
             and " during pairs round " in l and "/node1" in l.split(" during ")[1] and " slow " in l]
    fail.check(named, "no Evidence line names node1 mlx5_1 port 1 with a slow pair of node1: %s" % evidence)
    fail.check(not any(("/node0 " in l.split(":")[0] or "/node2 " in l.split(":")[0]) for l in out.splitlines()
                       if l.startswith("#   FAIL") or l.startswith("#   WARN")),
               "a finding on node0 or node2, whose trees did not change")
    try:
        with open(results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail.check(False, "%s: %s" % (results, e))
        doc = {}
    health = doc.get("health", {})
    with open(opts.pairs_schema) as f:
        pairs_schema = json.load(f)
        errors = validate(doc, pairs_schema, pairs_schema)
        fail.check(not errors, "the pairs JSON does not validate: %s" % errors[:5])
    with open(opts.results_schema) as f:
        schema = json.load(f)
    errors = validate(health, schema["$defs"]["health"], schema, "$.health")
    fail.check(not errors, "health: %s" % errors[:5])
    fail.check(len(health.get("nodes", [])) == NODES and all("before" in n for n in health.get("nodes", [])),
               "health.nodes: not every node with its before and after snapshots")
    found = [(f["severity"], f["host"].split("/")[-1], f["component"], f["counter"]) for f in health.get("findings", [])]
    fail.check(("FAIL", "node1", "mlx5_1 port 1", "link_downed") in found, "health.findings: %s" % found)
    summary = doc.get("summary", {})
    fail.check(summary.get("ok") is False and summary.get("slow_pairs")
               and any("/node1 mlx5_1 port 1: link_downed +1" in l for l in summary.get("health_fail", [])),
               "summary: not ok with its slow pairs and node1's link_downed in health_fail: %s" % summary)
    fail.check(all(h == "node1" for _, h, _, _ in found), "findings outside node1: %s" % found)
    rules = {f["counter"]: (f.get("rule"), f.get("limit")) for f in health.get("findings", [])}
    fail.check(rules.get("link_downed") == ("link_downed", "any rise fails, IBTA, GCM"),
               "health.findings: link_downed without its rule and limit: %s" % (rules.get("link_downed"),))
    fail.check(health.get("evidence") and all(e.get("what", "").startswith("pairs round ") for e in health["evidence"]),
               "health.evidence lacks the slow pairs the verdict was joined with: %s" % health.get("evidence"))
    fail.check(any(l in health.get("verdict", []) for l in [e[len("# Evidence: "):] for e in named]),
               "health.verdict lacks the evidence line printed")
    return verdict(fail, "the planted mlx5_1 port 1 fault is named with node1's slow pairs", out, err)


if __name__ == "__main__":
    sys.exit(main())
