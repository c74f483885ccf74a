#!/usr/bin/env python3
"""Where a build's time went, from Ninja's log (BUILD/.ninja_log; scripts/common.sh builds with
Ninja where it is installed): the slowest steps, and the time summed per kind of step.

  scripts/build-times.py build                 # the ten slowest steps, the sums per kind
  scripts/build-times.py build --top 20
  scripts/build-times.py build --markdown      # the tables docs/building.md shows

Only the newest entry of each output counts (an incremental build's log keeps the older ones);
times are the step's wall time, which on a busy machine includes waiting for a core.
"""
import argparse
import os
import sys


def read_log(build):
    path = os.path.join(build, ".ninja_log")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"build-times: cannot read {path}: {e.strerror} (a Ninja build folder?)")
    if not lines or not lines[0].startswith("# ninja log"):
        sys.exit(f"build-times: {path}: not a Ninja log (first line {lines[:1]})")
    steps = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 5:
            sys.exit(f"build-times: {path}:{number}: expected 5 tab-separated fields, got {len(fields)}")
        start, end, output = int(fields[0]), int(fields[1]), fields[3]
        steps[output] = (start, end)  # the newest entry wins
    return steps


def kind(output):
    if output.endswith(".gch") or output.endswith(".pch") or "cmake_pch" in output:
        return "precompiled headers"
    if output.endswith(".cu.o"):
        return "CUDA kernels"
    if output.endswith(".o") and output.startswith("tests/"):
        return "tests' batches (unity)" if "/Unity/" in output else "tests' files"
    if "/Unity/" in output:
        return "src/ batches (unity)"
    if output.endswith(".o"):
        return "src/ files"
    if output.endswith(".a") or output.endswith(".so") or "." not in os.path.basename(output):
        return "archives and links"
    return "other steps"


def name_of(output):
    """The source a step compiled: src/cli/compare_command.cpp for .../cli/compare_command.cpp.o."""
    if output.endswith(".o"):
        output = output[:-2]
    if ".dir/" not in output:
        return output
    target_dir, source = output.split(".dir/", 1)
    return target_dir.rsplit("/", 1)[-1] + ": " + source


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="a Ninja build folder")
    parser.add_argument("--top", type=int, default=10, help="how many of the slowest steps (default 10)")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args()
    steps = read_log(args.build)
    if not steps:
        sys.exit(f"build-times: {args.build}/.ninja_log lists no step")
    first = min(s for s, _ in steps.values())
    last = max(e for _, e in steps.values())
    sums = {}
    for output, (start, end) in steps.items():
        k = kind(output)
        total, count = sums.get(k, (0, 0))
        sums[k] = (total + end - start, count + 1)
    slowest = sorted(steps.items(), key=lambda item: item[1][1] - item[1][0], reverse=True)[: args.top]
    summed = sum(e - s for s, e in steps.values())
    if args.markdown:
        print("| step | s |\n|---|---:|")
        for output, (start, end) in slowest:
            print(f"| `{name_of(output)}` | {(end - start) / 1000:.1f} |")
        print("\n| kind | steps | s (summed) |\n|---|---:|---:|")
        for k, (total, count) in sorted(sums.items(), key=lambda item: -item[1][0]):
            print(f"| {k} | {count} | {total / 1000:.0f} |")
        print(f"| all | {len(steps)} | {summed / 1000:.0f} |")
    else:
        print(f"{len(steps)} steps, {summed / 1000:.0f} s summed, {(last - first) / 1000:.0f} s from the first to the last")
        print(f"the {len(slowest)} slowest:")
        for output, (start, end) in slowest:
            print(f"  {(end - start) / 1000:7.1f} s  {name_of(output)}")
        print("per kind:")
        for k, (total, count) in sorted(sums.items(), key=lambda item: -item[1][0]):
            print(f"  {total / 1000:7.0f} s  {count:4d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
