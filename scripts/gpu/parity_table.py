#!/usr/bin/env python3
"""nccl-tests beside commsweep, from the logs of scripts/gpu/parity.sh: per collective and size the
median over the rounds of each tool's out-of-place and in-place time, and the ratio nccl-tests /
commsweep (above 1: commsweep faster). Then, per collective, the issue's two bounds: the smallest
ratio from 1 MiB up (>= 0.97), and below 1 MiB the smallest (>= 0.95) and the median of the
sizes' ratios (>= 0.98). Exits 1 where a bound is missed, 2 where a log has no rows.

    scripts/gpu/parity_table.py LOG_DIR

LOG_DIR holds NAME.nccl-tests.ROUND.txt and NAME.commsweep.ROUND.txt: both tools print nccl-tests'
table, whose data rows have 13 fields (size, count, type, redop, root, then time, algbw, busbw and
#wrong out of place, the same in place); commsweep's own columns (--show-iterations, --show-algo)
come after them and are not read.
"""
import argparse
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

MIB = 1 << 20
BOUND_LARGE = 0.97   # every size from 1 MiB up
BOUND_SMALL = 0.95   # every size below 1 MiB
BOUND_SMALL_MEDIAN = 0.98  # the median of the ratios below 1 MiB


def rows(path):
    """{size: (out-of-place us, in-place us)} of one run's table."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) < 13 or not fields[0].isdigit():
                continue
            try:
                out[int(fields[0])] = (float(fields[5]), float(fields[9]))
            except ValueError:
                continue
    return out


def collect(log_dir):
    """{(name, tool): {size: [(oop, ip) per round]}}"""
    runs = defaultdict(lambda: defaultdict(list))
    empty = []
    for path in sorted(glob.glob(os.path.join(log_dir, "*.txt"))):
        m = re.fullmatch(r"(.+)\.(nccl-tests|commsweep)\.(\d+)\.txt", os.path.basename(path))
        if not m:
            continue
        table = rows(path)
        if not table:
            empty.append(path)
        for size, times in table.items():
            runs[(m.group(1), m.group(2))][size].append(times)
    return runs, empty


def median_of(samples, half):
    return statistics.median(s[half] for s in samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir")
    args = parser.parse_args()
    runs, empty = collect(args.log_dir)
    missed = []
    names = sorted({name for name, _ in runs}, key=lambda n: ["all_reduce", "alltoall", "all_gather",
                                                              "reduce_scatter"].index(n)
                   if n in ("all_reduce", "alltoall", "all_gather", "reduce_scatter") else 9)
    for name in names:
        ref, ours = runs.get((name, "nccl-tests"), {}), runs.get((name, "commsweep"), {})
        print(f"# {name}: median over rounds, time in us; ratio = nccl-tests / commsweep")
        print(f"{'size (B)':>12} {'rounds':>6} {'nccl-tests':>11} {'commsweep':>11} {'ratio':>6}"
              f" {'ip nccl-t':>11} {'ip commsw':>11} {'ip ratio':>8}")
        small, large = [], []
        for size in sorted(set(ref) & set(ours)):
            r_oop, o_oop = median_of(ref[size], 0), median_of(ours[size], 0)
            r_ip, o_ip = median_of(ref[size], 1), median_of(ours[size], 1)
            ratio = r_oop / o_oop if o_oop > 0 else float("nan")
            ip_ratio = r_ip / o_ip if o_ip > 0 else float("nan")
            (large if size >= MIB else small).append(ratio)
            print(f"{size:>12} {min(len(ref[size]), len(ours[size])):>6} {r_oop:>11.2f} {o_oop:>11.2f} "
                  f"{ratio:>6.3f} {r_ip:>11.2f} {o_ip:>11.2f} {ip_ratio:>8.3f}")
        only = sorted(set(ref) ^ set(ours))
        if only:
            print(f"# sizes in one tool's output only: {only}")
        verdicts = []
        if large:
            ok = min(large) >= BOUND_LARGE
            verdicts.append(f"from 1 MiB: min {min(large):.3f} (>= {BOUND_LARGE}) {'ok' if ok else 'MISSED'}")
            if not ok:
                missed.append(f"{name} from 1 MiB")
        if small:
            ok_min = min(small) >= BOUND_SMALL
            med = statistics.median(small)
            ok_med = med >= BOUND_SMALL_MEDIAN
            verdicts.append(f"below 1 MiB: min {min(small):.3f} (>= {BOUND_SMALL}) {'ok' if ok_min else 'MISSED'}, "
                            f"median {med:.3f} (>= {BOUND_SMALL_MEDIAN}) {'ok' if ok_med else 'MISSED'}")
            if not (ok_min and ok_med):
                missed.append(f"{name} below 1 MiB")
        print(f"# {name}: " + "; ".join(verdicts) + "\n")
    for path in empty:
        print(f"# no rows in {path}", file=sys.stderr)
    print(f"# parity: {len(names)} collectives, " + (f"bounds missed: {', '.join(missed)}" if missed else "every bound met"))
    if empty:
        return 2
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
