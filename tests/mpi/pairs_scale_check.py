#!/usr/bin/env python3
"""`commsweep pairs --adaptive` on 16 emulated nodes under 4 leaves (tests/fixtures/plan/emulated-16.txt),
with a planted fault, and what the follow-up names.

    pairs_scale_check.py --commsweep BIN --mpiexec MPIEXEC --np N --per-node P --topology FILE
        --schema PAIRS_SCHEMA --workdir DIR --expect-node NODE | --expect-leaf LEAF -- pairs ARGS

Checks: exit 10 (a slow pair); the JSON valid against commsweep.pairs/2; the pattern's rounds
first, each a set of disjoint pairs; every follow-up pair has a node that an earlier slow pair
implicated (the follow-up re-tests only those); exactly one finding, naming the planted node
(kind node) or the planted leaf (kind leaf-uplinks), and the text's FINDING line says the same;
no pair without the fault in it is slow in its last measurement. Standard library only.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
from commsweep_check import REPO, Failures, launcher, run, verdict  # noqa: E402
from results_json import validate  # noqa: E402

SLOW_PAIR_EXIT = 10  # slow (docs/failures.md)


def read_leaves(path):
    leaf = {}
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if words:
                leaf[words[0]] = words[1]
    return leaf


def check(opts, rc, out, doc, fail):
    fail.check(rc == SLOW_PAIR_EXIT, "exit code %s, expected %d" % (rc, SLOW_PAIR_EXIT))
    with open(opts.schema) as f:
        schema = json.load(f)
    for e in validate(doc, schema, schema)[:20]:
        fail.check(False, "commsweep.pairs/2: %s" % e)
    leaf_of_name = read_leaves(opts.topology)
    names = [n["name"].split("/")[-1] for n in doc["nodes"]]
    leaf = [leaf_of_name[n] for n in names]
    fail.check(doc["detail"] == "full" and doc["pattern"] == opts.pattern, "detail %s pattern %s" % (doc["detail"], doc["pattern"]))
    planned = doc["planned_rounds"]
    fail.check(0 < planned < len(doc["rounds"]), "%d planned rounds of %d: no follow-up?" % (planned, len(doc["rounds"])))
    for i, r in enumerate(doc["rounds"]):
        busy = [x for p in r["pairs"] for x in p]
        fail.check(len(busy) == len(set(busy)), "round %d: a node twice: %s" % (i + 1, r["pairs"]))
        fail.check((i < planned) == (not r["label"].startswith("follow-up")), "round %d label %r" % (i + 1, r["label"]))
    # The follow-up re-tests only nodes an earlier slow pair implicated.
    implicated = set()  # nodes of slow pairs of the rounds before the one at hand
    for r in range(len(doc["rounds"])):
        pairs = [p for p in doc["pairs"] if p["round"] == r]
        if r >= planned:
            for p in pairs:
                fail.check(p["node_a"] in implicated or p["node_b"] in implicated,
                           "follow-up pair %s-%s: neither node was in a slow pair before" % (names[p["node_a"]], names[p["node_b"]]))
        implicated |= {n for p in pairs if p["slow"] for n in (p["node_a"], p["node_b"])}
    # Each pair by its last measurement: slow exactly when the fault is in it.
    last = {}
    for p in doc["pairs"]:
        last[(p["node_a"], p["node_b"])] = p["slow"]
    for (a, b), slow in sorted(last.items()):
        if opts.expect_node:
            faulty = opts.expect_node in (names[a], names[b])
        else:
            faulty = (leaf[a] == opts.expect_leaf) != (leaf[b] == opts.expect_leaf)
        fail.check(slow == faulty, "pair %s-%s: slow %s, the fault is %sin it" % (names[a], names[b], slow, "" if faulty else "not "))
    findings = doc["findings"]
    if opts.expect_node:
        want = {"kind": "node", "node_name": doc["nodes"][names.index(opts.expect_node)]["name"]}
        line = "# FINDING NODE %s:" % want["node_name"]
    else:
        want = {"kind": "leaf-uplinks", "leaf_name": opts.expect_leaf}
        line = "# FINDING LEAF UPLINKS %s:" % opts.expect_leaf
    fail.check(len(findings) == 1 and all(findings[0].get(k) == v for k, v in want.items()),
               "findings %s, expected one %s" % (findings, want))
    fail.check(any(l.startswith(line) for l in out.splitlines()), "no line starting %r" % line)
    fail.check(sum(l.startswith("# FINDING") for l in out.splitlines()) == 1, "more than one FINDING line")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--per-node", type=int, required=True)
    p.add_argument("--topology", required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--pattern", default="bisection")
    p.add_argument("--expect-node")
    p.add_argument("--expect-leaf")
    p.add_argument("--bound", type=float, default=150)
    p.add_argument("args", nargs=argparse.REMAINDER)
    opts = p.parse_args()
    if bool(opts.expect_node) == bool(opts.expect_leaf):
        p.error("one of --expect-node, --expect-leaf")
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    os.makedirs(opts.workdir, exist_ok=True)
    doc_path = os.path.join(opts.workdir, "pairs.json")
    if os.path.exists(doc_path):
        os.remove(doc_path)
    args = args + ["--topology", opts.topology, "--pattern", opts.pattern, "--adaptive", "--json", doc_path]
    os.environ["COMMSWEEP_RANKS_PER_NODE"] = str(opts.per_node)
    cmd = launcher(opts.mpiexec, opts.np) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), opts.commsweep] + args
    print("running: COMMSWEEP_RANKS_PER_NODE=%d %s" % (opts.per_node, " ".join(cmd)), flush=True)
    rc, out, err, elapsed, timed_out = run(cmd, opts.bound, opts.workdir)
    print("exit code %s after %.1f s; output in %s" % (rc, elapsed, opts.workdir))
    print(out)
    fail = Failures()
    fail.check(not timed_out, "still running after %.0f s; ended it" % opts.bound)
    if fail.check(os.path.exists(doc_path), "no JSON at %s" % doc_path):
        with open(doc_path) as f:
            check(opts, rc, out, json.load(f), fail)
    return verdict(fail, "pairs --adaptive", out, err)


if __name__ == "__main__":
    sys.exit(main())
