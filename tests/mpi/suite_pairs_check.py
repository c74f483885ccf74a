#!/usr/bin/env python3
"""`kind: pairs` in a suite: 4 ranks as 2 emulated nodes (scripts/emulate-nodes.sh) run a suite
of a pairs sweep and a collective sweep on one communicator. Checked: exit 0; both banners in
order, the pairs matrix under the first; one results file, valid against the results schema,
with the collective's rows and, under "documents", one document valid against the pairs schema whose
one pair (node 0 with node 1) was measured on every rail, none slow and nothing wrong.
Standard library only."""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # the modules beside this file: no __pycache__ in the sources
from commsweep_check import Failures, launcher, run, verdict  # noqa: E402
from results_json import validate  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SUITE = """- name: node-pairs
  kind: pairs
  size: 1M
  iters: 5
  warmup: 1
  slow_below: 0.02
- name: small
  kind: collective
  tests: all_reduce
  max_bytes: 1K
"""


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--schema", required=True, help="the filled results schema")
    p.add_argument("--pairs-schema", required=True, help="the filled pairs schema")
    p.add_argument("--workdir", required=True)
    opts = p.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    suite, results = os.path.join(opts.workdir, "pairs-suite.yaml"), os.path.join(opts.workdir, "suite.json")
    with open(suite, "w") as f:
        f.write(SUITE)
    os.environ["COMMSWEEP_RANKS_PER_NODE"] = "2"
    cmd = launcher(opts.mpiexec, 4) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), opts.commsweep, "suite",
                                       suite, "--backend", "mpi", "--no-preflight", "--json", results]
    rc, out, err, _, _ = run(cmd, 120, opts.workdir)
    fail = Failures()
    fail.check(rc == 0, "exit code %s, expected 0" % rc)
    first = out.find("# Suite sweep 1 of 2: node-pairs (pairs)")
    second = out.find("# Suite sweep 2 of 2: small (all_reduce)")
    fail.check(0 <= first < second, "the two banners in order")
    fail.check("# GB/s each way" in out[first:second], "no pairs matrix under the pairs sweep's banner")
    if rc == 0 and os.path.exists(results):
        with open(results) as f:
            doc = json.load(f)
        with open(opts.schema) as f:
            schema = json.load(f)
        with open(opts.pairs_schema) as f:
            pairs_schema = json.load(f)
        fail.check(not validate(doc, schema, schema), "results against the schema: %s" % validate(doc, schema, schema)[:3])
        fail.check(any(r["test"] == "all_reduce" for r in doc["rows"]), "no all_reduce rows in the results")
        fail.check("pairs" not in doc, "the old key \"pairs\" written (documents hold them now)")
        documents = doc.get("documents", [])
        fail.check(len(documents) == 1 and documents[0].get("schema") == "commsweep.pairs/2",
                   "%d documents, expected 1 pairs document" % len(documents))
        for d in documents:
            errors = validate(d, pairs_schema, pairs_schema)
            fail.check(not errors, "the pairs document against its schema: %s" % errors[:3])
            fail.check(len(d["pairs"]) == 1 and len(d["pairs"][0]["rails"]) == 2,
                       "one pair of two rails expected: %s" % d["pairs"])
            fail.check(d["summary"]["complete"] and d["summary"]["wrong_total"] == 0, "summary %s" % d["summary"])
    return verdict(fail, "suite with kind: pairs", out, err)


if __name__ == "__main__":
    sys.exit(main())
