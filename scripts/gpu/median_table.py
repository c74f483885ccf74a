#!/usr/bin/env python3
"""Medians over the cycles (-N) of a commsweep results JSON: one line per test, type,
operator and size, out-of-place and in-place time and busbw.

    scripts/gpu/median_table.py results.json [--reference nccl-tests-output.txt]

With --reference, the busbw of an nccl-tests output (data rows only) is shown beside ours
with the difference in percent.
"""
import argparse
import json
import statistics
from collections import defaultdict


def reference_busbw(path):
    ref = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) != 13:
                continue
            ref[int(fields[0])] = float(fields[7])
    return ref


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--reference")
    args = parser.parse_args()
    with open(args.results) as f:
        doc = json.load(f)
    groups = defaultdict(list)
    for row in doc["rows"]:
        groups[(row["test"], row["type"], row["redop"], row["size_bytes"])].append(row)
    ref = reference_busbw(args.reference) if args.reference else {}
    print(f"{'test':>14} {'type':>8} {'size':>12} {'n':>2} {'oop us':>9} {'oop busbw':>9} "
          f"{'ip us':>9} {'ip busbw':>9}" + (f" {'ref busbw':>9} {'diff%':>6}" if ref else ""))
    for (test, dtype, _, size), rows in sorted(groups.items()):
        def med(half, key):
            return statistics.median(r[half][key] for r in rows)
        line = (f"{test:>14} {dtype:>8} {size:>12} {len(rows):>2} "
                f"{med('out_of_place', 'time_us'):>9.2f} {med('out_of_place', 'busbw_gbps'):>9.2f} "
                f"{med('in_place', 'time_us'):>9.2f} {med('in_place', 'busbw_gbps'):>9.2f}")
        if size in ref:
            ours = med("out_of_place", "busbw_gbps")
            diff = (ours - ref[size]) / ref[size] * 100 if ref[size] else 0.0
            line += f" {ref[size]:>9.2f} {diff:>+6.1f}"
        print(line)


if __name__ == "__main__":
    main()
