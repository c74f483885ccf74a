#!/usr/bin/env python3
"""`commsweep pairs --plan` as a user runs it, without mpirun: the plan of every pattern, the
topology formats, the refusals (--max-minutes, bad topology input, flag mistakes) and the cost
model fitted to a pairs results file.

    pairs_plan_cli_check.py --commsweep BIN --fixtures tests/fixtures/plan --workdir DIR
Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--workdir", required=True)
    o = ap.parse_args()
    os.makedirs(o.workdir, exist_ok=True)
    bad = []

    def expect(args, rc, *texts, where="out"):
        code, out, err = run([o.commsweep, "pairs", "--plan"] + args)
        text = out if where == "out" else err
        if code != rc:
            bad.append("%s: exit %s, expected %s (%s)" % (" ".join(args), code, rc, err.strip()))
        for t in texts:
            if not re.search(t, text, re.M):
                bad.append("%s: no %r in %s:\n%s" % (" ".join(args), t, where, text))
        return out

    fx = lambda name: os.path.join(o.fixtures, name)
    # Round counts at the optimum, the coverage, the prediction.
    expect(["--nodes", "1000"], 0, r"^# 999 rounds .*499500 distinct: 100\.00 %", r"^# predicted: .* x 999 rounds = ")
    expect(["--nodes", "999"], 0, r"^# 999 rounds ")
    expect(["--nodes", "64", "--per-leaf", "8", "--pattern", "cross-leaf"], 0, r"^# 56 rounds \(no plan of these pairs has fewer than 56\)")
    expect(["--nodes", "64", "--per-leaf", "8", "--pattern", "intra-leaf"], 0, r"^# 7 rounds .*every promised pair exactly once \(224\)")
    expect(["--nodes", "4096", "--pattern", "sample:4"], 0, r"^# 4 rounds .*8192 pairs, (8192|819[0-9]) distinct")
    expect(["--nodes", "16", "--per-leaf", "4", "--leaves-per-block", "2", "--pattern", "bisection"], 0,
           r"cut 1: blocks", r"cut 2: leaves", r"cut 3: nodes of a leaf")
    # Topology formats.
    expect(["--topology", fx("nodes-oci.json"), "--pattern", "intra-leaf"], 0, r"oci\.oraclecloud\.com/rdma\.local_block_id", r"leaves 3, blocks 2")
    expect(["--topology", fx("nodes-kueue.yaml")], 0, r"Kueue Topology default: leaf cloud\.example\.com/topology-rack")
    expect(["--topology", fx("hosts.txt")], 0, r"leaf leaf-c holds one node")
    expect(["--nodes", "6", "--pattern", "cross-leaf"], 0, r"cross-leaf has no pair")
    # Refusals, each naming what is wrong.
    expect(["--nodes", "1000", "-s", "64M", "--max-minutes", "1"], 2, r"--max-minutes 1: the all-pairs plan over 1000 nodes is predicted to take", where="err")
    dup = os.path.join(o.workdir, "dup.txt")
    open(dup, "w").write("a leaf1\nb leaf1\na leaf2\n")
    expect(["--topology", dup], 2, r"node a is placed twice \(leaf leaf1 and leaf leaf2\)", where="err")
    expect(["--topology", fx("hypernodes.yaml")], 2, r"chooses nodes by pattern", where="err")
    expect(["--topology", os.path.join(o.workdir, "absent.yaml")], 2, r"--topology: .*absent\.yaml", where="err")
    expect([], 2, r"--plan needs --nodes N or --topology FILE", where="err")
    expect(["--nodes", "8", "--pattern", "ring"], 2, r"--pattern: 'ring' is not", where="err")
    expect(["--nodes", "8", "--leaves-per-block", "2"], 2, r"--leaves-per-block needs --per-leaf", where="err")
    # The cost model fitted to a results file: 1e6 B in 100 us per exchange, 1 s per round.
    doc = {"schema": "commsweep.pairs/2", "settings": {"bytes": 1000000, "iters": 8, "warmup": 1, "check": 1},
           "rounds": [{"wall_s": 1.0}], "pairs": [{"round": 0, "rails": [{"time_us": 100.0}]}]}
    cost = os.path.join(o.workdir, "cost.json")
    json.dump(doc, open(cost, "w"))
    expect(["--nodes", "10", "-s", "1M", "--cost-from", cost], 0, r"fitted to 1 round\(s\) of .*cost\.json: 11\.1 GB/s per rail, 10 us per exchange, 0\.999 s per round")
    expect(["--nodes", "10", "--cost-from", fx("hosts.txt")], 2, r"--cost-from: .*hosts\.txt: not valid JSON: parse error at line 1", where="err")
    empty = os.path.join(o.workdir, "empty.json")
    open(empty, "w").close()
    expect(["--nodes", "10", "--cost-from", empty], 2, r"--cost-from: .*empty\.json: empty, no JSON in it", where="err")
    expect(["--nodes", "10"], 0, r"= 0:0[0-9] \(m:ss\)")
    for b in bad:
        print("FAIL:", b)
    print("pairs --plan: %s" % ("FAILED" if bad else "PASSED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
