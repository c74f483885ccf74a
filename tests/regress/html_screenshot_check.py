#!/usr/bin/env python3
"""The HTML report as a browser shows it: `commsweep compare --html` on the H200 sample with a
doctored 15% drop at 1G and a history of two runs, rendered by headless Chromium, screenshot
decoded and checked: not blank, this run's blue line, the baseline's orange, the history's grey
and the red FAIL marker present in the pixels.

    html_screenshot_check.py --commsweep BIN --samples DIR --workdir DIR [--chromium PATH]

Exit 77 (ctest SKIP) when no working Chromium exists (Ubuntu's chromium is a snap shim that
does not run in CI): scripts/install-deps.sh installs Debian's where it can.
"""
import argparse
import os
import shutil
import subprocess
import sys

from png_pixels import read_png
from regress_cli import Check, fresh_dir, load, run, save, slower

SKIP = 77
COLOURS = {  # regress/render_html.cpp
    "this run (blue)": (0x1f, 0x77, 0xb4),
    "baseline (orange)": (0xff, 0x7f, 0x0e),
    "history (grey)": (0xb0, 0xb0, 0xb0),
    "FAIL marker (red)": (0xd6, 0x27, 0x28),
}


def chromium_command(explicit):
    for name in ([explicit] if explicit else ["chromium", "chromium-browser", "google-chrome"]):
        path = shutil.which(name) if name else None
        if not path:
            continue
        try:
            p = subprocess.run([path, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "about:blank"],
                               capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"{path}: does not run headless ({e})")
            continue
        if p.returncode == 0 and "<html" in p.stdout:
            return path
        print(f"{path}: does not run headless (exit {p.returncode}: {p.stderr.strip()[:200]})")
    return None


def near(px, colour, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(px, colour))


def make_report(c, bin_, samples, p):
    night = os.path.join(samples, "h200x4-all_reduce-8B-8G-x3.json")
    doc = load(night)
    rc, _, err = run([bin_, "baseline", night, "-o", p("base.json"), "--mode", "nvlink"])
    c.expect(rc == 0, f"baseline: exit {rc} {err.strip()}")
    hist = fresh_dir(p("history"))
    for day, factor in (("19", 1.03), ("20", 0.98)):
        earlier = slower(doc, 1 << 30, factor)
        earlier["provenance"]["started_at"] = f"2026-11-{day}T03:15:00Z"
        save(earlier, p(f"night{day}.json"))
        rc, _, err = run([bin_, "compare", p(f"night{day}.json"), "--baseline", p("base.json"),
                          "--history", hist, "--record", "--quiet"])
        c.expect(rc == 0, f"night {day} recorded: exit {rc} {err.strip()}")
    save(slower(doc, 1 << 30, 1 / 0.85), p("tonight.json"))
    rc, _, err = run([bin_, "compare", p("tonight.json"), "--baseline", p("base.json"), "--history", hist,
                      "--html", p("report.html"), "--quiet"])
    c.expect(rc == 9, f"tonight (15% lower at 1G) judged a regression: exit {rc} {err.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    chromium = chromium_command(a.chromium)
    if not chromium:
        print("SKIP: no working Chromium (install Debian's chromium: scripts/install-deps.sh)")
        sys.exit(SKIP)
    w = fresh_dir(a.workdir)
    p = lambda name: os.path.join(w, name)
    c = Check("html_screenshot_check")
    make_report(c, a.commsweep, a.samples, p)
    shot = p("report.png")
    proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--screenshot={shot}", "--window-size=1200,900", "file://" + p("report.html")],
                          capture_output=True, text=True, timeout=120)
    c.expect(proc.returncode == 0 and os.path.exists(shot), f"chromium took a screenshot (exit {proc.returncode})")
    if not os.path.exists(shot):
        c.finish()
    width, height, rows = read_png(shot)
    c.expect((width, height) == (1200, 900), f"screenshot is 1200 x 900 (got {width} x {height})")
    pixels = [px for row in rows for px in row]
    distinct = len(set(pixels))
    c.expect(distinct > 50, f"not blank: {distinct} distinct colours")
    for what, colour in COLOURS.items():
        n = sum(1 for px in pixels if near(px, colour))
        c.expect(n >= 20, f"{what} pixels present: {n}")
    c.finish()


if __name__ == "__main__":
    main()
