#!/usr/bin/env python3
"""The noise rules of `commsweep compare` (docs/regressions.md) on injected timings, so that the
verdict depends on the rules only, never on how busy the machine running the test is.

The timings are recorded ones: results/samples/h200x4-all_reduce-8B-8G-x3.json, all_reduce 8 B to
8 GiB with three cycles (-N 3) on 4 x H200, as commsweep wrote it. Seven runs are made of it
(every field in the format the binary writes; busbw, algbw, every rank's time follow the time):

- six "identical" runs: each cycle's recorded time (it already varies 0-4% from cycle to cycle and
  up to 7% between a row's halves) times a run-to-run offset (up to 12% slower than the baseline's
  run below 64 KiB and 2% from it, both ways: the two sample runs of all_reduce on that machine
  differ by 1-13% and by 0.2-1.1% there; 18% slower is past the 10% fail band, so the latency
  floor of the rules is what keeps those identical runs from failing),
  a per-sample jitter of 2% (log-normal), and now and then (1% of the samples, about 2 a run; the
  sample itself has none in 186) a disturbed moment 1.5 to 3 times slower in one half of one
  cycle, the kind a busy core gives (2-3x was seen on the 2-core CI machine);
- one run with a planted 2x slowdown from 4 KiB on (every cycle, both halves: what `--fault
  slow:R@4K` does), with the same jitter.

The real `commsweep baseline` makes a baseline of the sixth run (one run, the hardest case: its
spread is only what its rows show of themselves), and the real `commsweep compare` judges the
other five (each: exit 0, no FAIL) and the slowed run (exit 9; every slowed measurement FAILs,
unless the noise measured at it, in the run or the baseline, is itself as large as the
slowdown). A fixed seed: the same files and verdicts on every machine.

    noise_injected_check.py --commsweep BIN --samples DIR --workdir DIR
"""
import argparse
import copy
import json
import math
import os
import random
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from regress_cli import Check, load, run, save  # noqa: E402

SEED = 20261127
SMALL = 65536        # below it latency sizes (the rules' small_message_bytes)
# Each run's time factor below SMALL and from it; the last run is the baseline's (a fast night).
RUN_OFFSETS = [(1.12, 1.02), (1.08, 0.98), (1.04, 1.01), (1.00, 0.99), (0.97, 1.00), (0.95, 1.00)]
SLOWED_OFFSET = (1.00, 1.00)
RUNS = len(RUN_OFFSETS)  # five judged, the sixth the baseline
JITTER = 0.02        # per sample, log-normal sigma: the sample's cycles spread 0-4%
DISTURBED = 0.01     # share of samples with a disturbed moment (about 2 per run) ...
DISTURBED_X = (1.5, 3.0)  # ... this many times slower (a busy shared core)
SLOW_FROM = 4096     # the planted slowdown's first size
SLOWDOWN = 2.0       # 2x: time +100%, busbw -50%
SLOWDOWN_PCT = 50.0  # a slowed measurement may stay below FAIL only where the noise is this large
BUS_FACTOR_4 = 1.5   # all_reduce on 4 ranks: 2(n-1)/n (docs/collectives.md)


def retime(timing, factor):
    """One half of a row `factor` times slower: its time, every rank's, and the bandwidths."""
    timing["time_us"] *= factor
    timing["slowest_time_us"] *= factor
    timing["rank_time_us"] = [t * factor for t in timing["rank_time_us"]]
    timing["algbw_gbps"] /= factor
    timing["busbw_gbps"] = timing["algbw_gbps"] * BUS_FACTOR_4


def make_run(template, rng, offsets, slow_from=None):
    doc = copy.deepcopy(template)
    doc["schema"] = "commsweep.results/2"
    for row in doc["rows"]:
        for half in ("out_of_place", "in_place"):
            factor = offsets[row["size_bytes"] >= SMALL] * math.exp(rng.gauss(0, JITTER))
            if rng.random() < DISTURBED:
                factor *= rng.uniform(*DISTURBED_X)
            if slow_from is not None and row["size_bytes"] >= slow_from:
                factor *= SLOWDOWN
            retime(row[half], factor)
    halves = [row[h]["busbw_gbps"] for row in doc["rows"] for h in ("out_of_place", "in_place")]
    doc["summary"]["avg_busbw_gbps"] = sum(halves) / len(halves)
    return doc


def fails_of(path):
    return [j for j in load(path)["judgements"] if j["verdict"] == "FAIL"] if os.path.exists(path) else None


def text_of(judgements):
    return "; ".join("%s %s: %s" % (j["key"]["size"], j["key"]["place"], j["reason"]) for j in judgements)


def check_slowed(check, judgements, base_path):
    slow = [j for j in judgements if j["key"]["size"] >= SLOW_FROM]
    caught = [j for j in slow if j["verdict"] == "FAIL"]
    check.expect(len(slow) > 0 and len(caught) >= 0.9 * len(slow),
                 "the slowed run: %d of %d slowed measurements FAIL" % (len(caught), len(slow)))
    # The noise measured at a size: the judgement's (the baseline's spread and the run's own over
    # its cycles, capped, and the cycles' uncapped, which the NOISY band takes) and the
    # baseline's uncapped spread there, for both halves of the row.
    noise = {(j["key"]["size"], j["key"]["place"]): max(j["spread_pct"], (j.get("noise") or {}).get("cycles_pct", 0))
             for j in judgements}
    for e in load(base_path)["entries"]:
        key = (e["size_bytes"], e["place"])
        noise[key] = max(noise.get(key, 0), e["busbw_spread_pct"], e["time_spread_pct"])
    for j in slow:
        if j["verdict"] == "FAIL":
            continue
        size, place = j["key"]["size"], j["key"]["place"]
        other = "in_place" if place == "out_of_place" else "out_of_place"
        measured = max(noise.get((size, place), 0), noise.get((size, other), 0))
        check.expect(measured >= SLOWDOWN_PCT, "slowed %s %s is %s: the noise measured there is %.1f%% (the "
                     "slowdown is %.0f%%): %s" % (size, place, j["verdict"], measured, SLOWDOWN_PCT, j["reason"]))
    fast = [j for j in judgements if j["key"]["size"] < SLOW_FROM and j["verdict"] == "FAIL"]
    check.expect(not fast, "the slowed run: no FAIL below %d B: %s" % (SLOW_FROM, text_of(fast)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commsweep", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--workdir", required=True)
    opts = parser.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    check = Check("noise_injected")
    template = load(os.path.join(opts.samples, "h200x4-all_reduce-8B-8G-x3.json"))
    rng = random.Random(SEED)
    files = []
    for i in range(RUNS):
        files.append(os.path.join(opts.workdir, "run%d.json" % i))
        save(make_run(template, rng, RUN_OFFSETS[i]), files[-1])
    slowed = os.path.join(opts.workdir, "slowed.json")
    save(make_run(template, rng, SLOWED_OFFSET, SLOW_FROM), slowed)

    base = os.path.join(opts.workdir, "base.json")
    rc, out, err = run([opts.commsweep, "baseline", files[-1], "-o", base, "--mode", "nvlink"], timeout=60)
    check.expect(rc == 0 and "from 1 run\n" in out, "baseline of the sixth run: exit %d: %s%s" % (rc, out, err))
    for i, path in enumerate(files[:-1]):
        verdicts = os.path.join(opts.workdir, "compare%d.json" % i)
        rc, out, err = run([opts.commsweep, "compare", path, "--baseline", base, "--mode", "nvlink",
                            "--json", verdicts, "--quiet"], timeout=60)
        fails = fails_of(verdicts)
        check.expect(rc == 0 and fails == [], "identical run %d: exit %d (expected 0), FAIL: %s %s" % (
            i, rc, "none" if not fails else text_of(fails), err.strip()))
    verdicts = os.path.join(opts.workdir, "compare_slowed.json")
    rc, out, err = run([opts.commsweep, "compare", slowed, "--baseline", base, "--mode", "nvlink",
                        "--json", verdicts, "--quiet"], timeout=60)
    check.expect(rc == 9, "the slowed run: compare exit %d, expected 9 (regression) %s" % (rc, err.strip()))
    if os.path.exists(verdicts):
        check_slowed(check, load(verdicts)["judgements"], base)
    else:
        check.expect(False, "no verdicts for the slowed run")
    check.finish()


if __name__ == "__main__":
    main()
