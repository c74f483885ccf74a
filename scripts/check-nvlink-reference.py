#!/usr/bin/env python3
"""Compares `commsweep nvlink --json`'s copy-engine write per ordered pair with
scripts/nvlink-reference.py's PyTorch copy_ between the same two GPUs (matched by PCI bus id),
measured in the same call (not part of the product; docs/nvlink.md). Prints a line per pair and
each one's ratio to the topology's rate; exits 1 when a pair differs by more than --within
(0.05: 5%), 2 on a file that is not what it should be.

    python3 scripts/check-nvlink-reference.py NVLINK.json REFERENCE.json [--within 0.05]
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("nvlink")
    p.add_argument("reference")
    p.add_argument("--within", type=float, default=0.05)
    o = p.parse_args()
    run, ref = json.load(open(o.nvlink)), json.load(open(o.reference))
    if run.get("schema") != "commsweep.nvlink/1" or len(run.get("nodes", [])) != 1:
        print("%s: not a commsweep.nvlink/1 file of one node" % o.nvlink, file=sys.stderr)
        return 2
    node = run["nodes"][0]
    bus = [g["pci_bus_id"].lower() for g in node["gpus"]]
    ref_bus = {g["index"]: g["pci_bus_id"].lower() for g in ref["gpus"]}
    ref_gbps = {(ref_bus[x["src"]], ref_bus[x["dst"]]): x["gbps"] for x in ref["pairs"]}
    worst, bad, compared = 0.0, 0, 0
    print("# src -> dst            commsweep ce_write   torch copy_   ratio   x topology")
    for pair in node["pairs"]:
        key = (bus[pair["src"]], bus[pair["dst"]])
        mine, theirs = pair["gbps"]["ce_write"], ref_gbps.get(key)
        if mine is None or theirs is None:
            print("%d -> %d: not in both files" % (pair["src"], pair["dst"]))
            bad += 1
            continue
        ratio = mine / theirs
        off = abs(ratio - 1)
        worst, compared = max(worst, off), compared + 1
        expected = pair.get("expected_gbps")
        topo = "%.3f" % (mine / expected) if expected else "-"
        flag = "" if off <= o.within else "   OUTSIDE %.0f%%" % (100 * o.within)
        print("%d -> %d %-14s %10.2f GB/s %10.2f GB/s  %6.3f   %s%s"
              % (pair["src"], pair["dst"], "", mine, theirs, ratio, topo, flag))
        bad += off > o.within
    print("# %d pairs compared, the largest difference %.1f%%, %d outside %.0f%%"
          % (compared, 100 * worst, bad, 100 * o.within))
    return 1 if bad or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
