#!/usr/bin/env python3
"""Doctors a commsweep results file for the nightly end-to-end case (tests/e2e/e2e_case.sh).

    doctor_results.py --baseline BASE [--cut-size BYTES --pct 20] [--wrong-size BYTES --count 5] [--quiet-iterations | --quiet-cut] IN OUT

Every row (each cycle, both halves) is first put on the baseline's median busbw (time, algbw
and per-rank times scaled to match), and its iterations (per_iter) on the baseline's p99 (every
iteration time scaled so that the p99 is the baseline's p99_us, where both have one): the night
as the baseline describes it, without this machine's noise, for the median rule and the tail
rule alike. Then, at --cut-size, the busbw of both halves is set pct% below the baseline and
their iterations slowed as much (a regression slows the row: compare takes one half alone for a
moment's noise);
at --wrong-size, the first out-of-place row gets --count wrong elements (counted in the
summary). So a verdict on the copy is caused by what was planted, and by nothing else.
--quiet-iterations puts every iteration of a half at the half's time instead (cv 0, p95 and p99
its p50; the cut slows them as much): the night without this machine's per-iteration noise
either, which compare's NOISY band reads (docs/regression-rules.md, "NOISY: not judged").
--quiet-cut does so for the cut rows alone: the other rows keep the run's own iterations (on the
baseline's p99), and the planted change is judged without the noise of the run it was planted in
(a loaded machine's p95 10x its p50 would excuse any drop up to 90% as NOISY).
Standard library only.
"""
import argparse
import json
import sys

KEY = ("test", "type", "redop", "root", "size_bytes")


def baseline_busbw(base):
    return {tuple(e[k] for k in KEY) + (e["place"],): e["busbw_gbps"] for e in base["entries"] if "busbw_gbps" in e}


def baseline_p99(base):
    return {tuple(e[k] for k in KEY) + (e["place"],): e["p99_us"] for e in base["entries"] if e.get("p99_us")}


# The iteration times of a half (per_iter) that move with its speed; cv_pct, spike_factor and
# the counts do not.
PER_ITER_TIMES = ("avg_us", "first_us", "max_us", "min_us", "p50_us", "p95_us", "p99_us", "stdev_us")
PER_ITER_LISTS = ("times_us", "rank_max_us")


def set_p99(per_iter, target):
    factor = target / per_iter["p99_us"]
    for k in PER_ITER_TIMES:
        if isinstance(per_iter.get(k), (int, float)):
            per_iter[k] *= factor
    for k in PER_ITER_LISTS:
        if isinstance(per_iter.get(k), list):
            per_iter[k] = [x * factor for x in per_iter[k]]
    if isinstance(per_iter.get("per_process_max_times_us"), list):
        per_iter["per_process_max_times_us"] = [[x * factor for x in times]
                                                for times in per_iter["per_process_max_times_us"]]


def set_quiet(per_iter, time_us):
    """Every iteration at TIME_US: no spread, no spike (a quiet machine's half)."""
    for k in PER_ITER_TIMES:
        if isinstance(per_iter.get(k), (int, float)):
            per_iter[k] = 0.0 if k == "stdev_us" else time_us
    for k in PER_ITER_LISTS:
        if isinstance(per_iter.get(k), list):
            per_iter[k] = [time_us for _ in per_iter[k]]
    if isinstance(per_iter.get("per_process_max_times_us"), list):
        per_iter["per_process_max_times_us"] = [[time_us for _ in times] for times in per_iter["per_process_max_times_us"]]
    per_iter["cv_pct"] = 0.0
    per_iter["spikes"] = 0


def set_busbw(timing, target):
    factor = timing["busbw_gbps"] / target  # > 1: slower
    timing["busbw_gbps"] = target
    timing["algbw_gbps"] /= factor
    timing["time_us"] *= factor
    timing["slowest_time_us"] *= factor
    timing["rank_time_us"] = [x * factor for x in timing["rank_time_us"]]


def doctor(doc, base, a):
    medians, p99s = baseline_busbw(base), baseline_p99(base)
    cut = wrong = 0
    for row in doc["rows"]:
        for place in ("out_of_place", "in_place"):
            key = tuple(row[k] for k in KEY) + (place,)
            if key not in medians:
                sys.exit("doctor_results: no baseline entry for %s" % (key,))
            target, slower = medians[key], 1.0
            if row["size_bytes"] == a.cut_size:
                target *= (100 - a.pct) / 100
                slower = 100 / (100 - a.pct)
                cut += 1
            set_busbw(row[place], target)
            per_iter = row[place].get("per_iter")
            quiet = a.quiet_iterations or (a.quiet_cut and slower > 1.0)
            if quiet and isinstance(per_iter, dict):
                set_quiet(per_iter, row[place]["time_us"])
            elif key in p99s and isinstance(per_iter, dict) and per_iter.get("p99_us"):
                set_p99(per_iter, p99s[key] * slower)
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
    quiet = p.add_mutually_exclusive_group()
    quiet.add_argument("--quiet-iterations", action="store_true")
    quiet.add_argument("--quiet-cut", action="store_true")
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
