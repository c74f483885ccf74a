#!/usr/bin/env python3
"""Proves the layer check can fail: offences planted in a copy of the tree are each reported,
the clean copy passes, and a pure library's real compile command cannot include MPI, NCCL or
CUDA headers (its include path holds none of them) while the comm layer's can include mpi.h."""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

PLANTS = [
    ("src/report/table.cpp", "#include <mpi.h>",
     "report is pure and includes <mpi.h>"),
    ("src/regress/compare.cpp", '#include "cli/options.hpp"',
     'regress includes "cli/options.hpp" of layer cli'),
    ("src/sweep/sweep.hpp", '#include "collectives/collective_test.hpp"',
     'engine includes "collectives/collective_test.hpp" of layer workloads'),
    ("src/core/types.hpp", '#include "nccl.h"',
     'model is pure and includes "nccl.h"'),
    ("src/comm/make_backend.hpp", '#include "cli/options.hpp"',
     'comm includes "cli/options.hpp" of layer cli'),
]
# A source file of each pure library, whose compile command stands for the library's.
PURE_SOURCES = {"model": "src/core/types.cpp", "report": "src/report/table.cpp",
                "regress": "src/regress/compare.cpp", "fabric": "src/fabric/preflight.cpp"}
FORBIDDEN = ["mpi.h", "nccl.h", "cuda_runtime_api.h"]


def run_checker(root, copy):
    cmd = [sys.executable, os.path.join(root, "scripts", "check-layers.py"), "--root", copy]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check_table(root, workdir):
    copy = os.path.join(workdir, "tree")
    shutil.rmtree(copy, ignore_errors=True)
    for top in ("src", "kernels", "scripts"):
        shutil.copytree(os.path.join(root, top), os.path.join(copy, top))
    rc, out = run_checker(root, copy)
    if rc != 0:
        fail(f"the clean copy fails the check (rc {rc}):\n{out}")
    print("clean copy: check-layers passes")
    for path, line, _ in PLANTS:
        with open(os.path.join(copy, path), "a", encoding="utf-8") as f:
            f.write("\n" + line + "\n")
    rc, out = run_checker(root, copy)
    print(out.rstrip())
    if rc != 1:
        fail(f"check-layers exited {rc} on planted includes, want 1")
    for path, _, expected in PLANTS:
        if not any(l.startswith(path + ":") and expected in l for l in out.splitlines()):
            fail(f"no line for {path} saying {expected!r}")
    print(f"planted copy: each of the {len(PLANTS)} planted includes reported, exit 1")
    # The table says no more than the tree: an arrow no file takes and a path owning no file.
    table = os.path.join(copy, "src", "layers.txt")
    with open(table, encoding="utf-8") as f:
        rows = f.read().splitlines()
    planted = []
    for i, row in enumerate(rows):
        fields = row.split()
        if fields[:1] == ["plan"]:
            fields[2] = "model" if fields[2] == "-" else fields[2] + ",model"
            rows[i] = " ".join(fields)
            planted.append("src/layers.txt: plan may include model and no file of it does")
        elif fields[:1] == ["output"]:
            rows[i] = row + " nosuch/"
            planted.append("src/layers.txt: output's path nosuch/ owns no file")
    with open(table, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    rc, out = run_checker(root, copy)
    if rc != 1 or len(planted) != 2:
        fail(f"check-layers exited {rc} on a table saying more than the tree, want 1 ({len(planted)} rows planted)")
    for expected in planted:
        if expected not in out:
            fail(f"no line saying {expected!r}:\n{out}")
    print("planted table: the arrow no file takes and the path owning no file reported, exit 1")


def batch_holds(batch, source):
    """Whether a unity batch (CMake's Unity/unity_N_cxx.cxx) includes `source` (a real path)."""
    try:
        with open(batch, encoding="utf-8") as f:
            return f'#include "{source}"' in f.read()
    except OSError:
        return False


def compile_command(build, root, source):
    """The directory, arguments and compiled file of `source`'s compile command: its own, or in a
    unity build (COMMSWEEP_UNITY_BUILD) the command of the batch that includes it."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    want = os.path.realpath(os.path.join(root, source))
    for in_batch in (False, True):
        for e in entries:
            compiled = os.path.realpath(os.path.join(e["directory"], e["file"]))
            if compiled == want or (in_batch and "/Unity/" in compiled and batch_holds(compiled, want)):
                args = e.get("arguments") or shlex.split(e["command"])
                return e["directory"], args, compiled
    fail(f"{source} is not in {build}/compile_commands.json, alone or in a unity batch")


def try_include(build, root, source, header, workdir):
    """Compiles a file that includes `header` with the flags `source` is built with."""
    directory, args, compiled = compile_command(build, root, source)
    probe = os.path.join(workdir, "probe.cpp")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(f"#include <{header}>\n")
    cmd, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        if a.startswith("-o") and len(a) > 2 or a.endswith(("ccache",)):
            continue
        if os.path.realpath(os.path.join(directory, a)) == compiled:
            a = probe
        cmd.append(a)
    cmd += ["-fsyntax-only"]
    done = subprocess.run(cmd, cwd=directory, capture_output=True, text=True, check=False)
    return done.returncode == 0, done.stderr


def on_default_path(build, root, header, workdir):
    """Whether the compiler alone, with no -I, finds `header` (e.g. NCCL in /usr/local/include):
    then no include path keeps it out, and only the include table guards it."""
    directory, args, _ = compile_command(build, root, PURE_SOURCES["model"])
    probe = os.path.join(workdir, "bare.cpp")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(f"#include <{header}>\n")
    done = subprocess.run([args[0], "-fsyntax-only", probe], cwd=directory, capture_output=True,
                          text=True, check=False)
    return done.returncode == 0


def check_include_paths(root, build, workdir):
    guarded = [h for h in FORBIDDEN if not on_default_path(build, root, h, workdir)]
    for h in FORBIDDEN:
        if h not in guarded:
            print(f"<{h}> is on the compiler's default include path here: only the table guards it")
    if "mpi.h" not in guarded:
        fail("mpi.h is on the compiler's default path: the probe cannot show a pure library "
             "lacks it")
    for layer, source in PURE_SOURCES.items():
        for header in guarded:
            ok, err = try_include(build, root, source, header, workdir)
            if ok:
                fail(f"{layer} ({source}'s compile command) can include <{header}>")
        print(f"{layer}: its compile command finds none of {', '.join(guarded)}")
    ok, err = try_include(build, root, "src/comm/backend.cpp", "mpi.h", workdir)
    if not ok:
        fail(f"comm's compile command cannot include <mpi.h> either: the probe proves nothing\n{err}")
    print("comm: its compile command finds mpi.h (the probe works)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    check_table(os.path.abspath(args.root), args.workdir)
    check_include_paths(os.path.abspath(args.root), os.path.abspath(args.build), args.workdir)
    print("PASS")


if __name__ == "__main__":
    main()
