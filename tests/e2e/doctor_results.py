#!/usr/bin/env python3
"""Doctors a commsweep results file for the nightly end-to-end case (tests/e2e/e2e_case.sh).

    doctor_results.py --baseline BASE [--cut-size BYTES --pct 20] [--wrong-size BYTES --count 5] IN OUT

Every row (each cycle, both halves) is first put on the baseline's median busbw (time, algbw
and per-rank times scaled to match): the night as the baseline describes it, without this
machine's noise. Then, at --cut-size, the busbw of both halves is set pct% below the baseline
(a regression slows the row: compare takes one half alone for a moment's noise);
at --wrong-size, the first out-of-place row gets --count wrong elements (counted in the
summary). So a verdict on the copy is caused by what was planted, and by nothing else.
Standard library only.
"""
import argparse
import json
import sys

KEY = ("test", "type", "redop", "root", "size_bytes")


def baseline_busbw(base):
    return {tuple(e[k] for k in KEY) + (e["place"],): e["busbw_gbps"] for e in base["entries"] if "busbw_gbps" in e}


def set_busbw(timing, target):
    factor = timing["busbw_gbps"] / target  # > 1: slower
    timing["busbw_gbps"] = target
    timing["algbw_gbps"] /= factor
    timing["time_us"] *= factor
    timing["slowest_time_us"] *= factor
    timing["rank_time_us"] = [x * factor for x in timing["rank_time_us"]]


def doctor(doc, base, a):
    medians = baseline_busbw(base)
    cut = wrong = 0
    for row in doc["rows"]:
        for place in ("out_of_place", "in_place"):
            key = tuple(row[k] for k in KEY) + (place,)
            if key not in medians:
                sys.exit("doctor_results: no baseline entry for %s" % (key,))
            target = medians[key]
            if row["size_bytes"] == a.cut_size:
                target *= (100 - a.pct) / 100
                cut += 1
            set_busbw(row[place], target)
        if row["size_bytes"] == a.wrong_size and not wrong:
            row["out_of_place"]["wrong"] = a.count
            doc["summary"]["wrong_total"] = (doc["summary"]["wrong_total"] or 0) + a.count
            doc["summary"]["ok"] = False
            wrong = 1
    if a.cut_size and not cut:
        sys.exit("doctor_results: no row of size %d" % a.cut_size)
    if a.wrong_size and not wrong:
        sys.exit("doctor_results: no row of size %d" % a.wrong_size)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baseline", required=True)
    p.add_argument("--cut-size", type=int, default=0)
    p.add_argument("--pct", type=float, default=20)
    p.add_argument("--wrong-size", type=int, default=0)
    p.add_argument("--count", type=int, default=5)
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args()
    with open(a.input) as f:
        doc = json.load(f)
    with open(a.baseline) as f:
        doctor(doc, json.load(f), a)
    with open(a.output, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
