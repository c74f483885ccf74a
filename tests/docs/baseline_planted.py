#!/usr/bin/env python3
"""docs.baseline_planted: scripts/sample-baseline.sh --check must fail on a baseline that is not
what the binary makes from the samples: the shipped one with one rule changed, named by its path.

Usage: baseline_planted.py REPO COMMSWEEP_BIN
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    repo, binary = sys.argv[1], sys.argv[2]
    with open(os.path.join(repo, "results/baselines/h200x4-nvlink.json")) as f:
        doc = json.load(f)
    doc["rules"]["fail_pct"] += 1
    with tempfile.TemporaryDirectory(prefix="baseline-planted-") as scratch:
        planted = os.path.join(scratch, "h200x4-nvlink.json")
        with open(planted, "w") as f:
            json.dump(doc, f, indent=2)
        proc = subprocess.run([os.path.join(repo, "scripts/sample-baseline.sh"), "--check", binary, planted],
                              capture_output=True, text=True, timeout=120)
    named = "$.rules.fail_pct: %s here, %s made now" % (json.dumps(doc["rules"]["fail_pct"]),
                                                       json.dumps(doc["rules"]["fail_pct"] - 1))
    if proc.returncode == 1 and named in proc.stderr:
        print("PASS: the doctored baseline is refused, naming " + named)
        return 0
    print("FAIL: expected exit 1 naming %r; got exit %d\n%s%s" % (named, proc.returncode, proc.stdout, proc.stderr))
    return 1


if __name__ == "__main__":
    sys.exit(main())
