# What keeping every iteration costs (scripts/gpu/verify-iterations.sh): per size and half, the
# median over the rounds of the row's time with the kernel clock (on-N.json), without per-
# iteration times (off-N.json) and with the CUDA events (events-N.json); the per-iteration p50 of
# both clocks; the granularity of the kernel clock's times (%globaltimer).
#   python3 scripts/gpu/iteration_cost.py DIR
import json, os, statistics, sys
d = sys.argv[1]
def load(prefix):
    t, p50 = {}, {}
    for i in (1, 2, 3, 4, 5):
        p = os.path.join(d, f"{prefix}-{i}.json")
        if not os.path.exists(p): continue
        for r in json.load(open(p))["rows"]:
            for h in ("out_of_place", "in_place"):
                k = (r["size_bytes"], h)
                t.setdefault(k, []).append(r[h]["time_us"])
                if r[h].get("per_iter"): p50.setdefault(k, []).append(r[h]["per_iter"]["p50_us"])
    return {k: statistics.median(v) for k, v in t.items()}, {k: statistics.median(v) for k, v in p50.items()}
on, on50 = load("on"); off, _ = load("off"); ev, ev50 = load("events")
print(f"{'size':>11} {'half':>12} {'off us':>9} {'kernel us':>9} {'cost':>7} {'events us':>9} {'cost':>7} {'p50 kern':>9} {'p50 ev':>9}")
for k in sorted(off):
    if k in on and k in ev:
        print(f"{k[0]:>11} {k[1]:>12} {off[k]:>9.2f} {on[k]:>9.2f} {100*(on[k]/off[k]-1):>6.2f}% {ev[k]:>9.2f} {100*(ev[k]/off[k]-1):>6.2f}% {on50.get(k,0):>9.2f} {ev50.get(k,0):>9.2f}")
ns = set()
for i in (1, 2, 3, 4, 5):
    p = os.path.join(d, f"on-{i}.json")
    if not os.path.exists(p): continue
    for r in json.load(open(p))["rows"]:
        pi = r["out_of_place"].get("per_iter")
        if pi and pi.get("clock") == "nccl-kernel":
            for rank in pi["per_process_max_times_us"]:
                ns.update(round(x * 1000) for x in rank)
if ns:
    import math
    g = 0
    for x in ns: g = math.gcd(g, x)
    print(f"kernel clock: {len(ns)} distinct times, their greatest common divisor {g} ns")
