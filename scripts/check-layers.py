#!/usr/bin/env python3
"""Fails when a file of src/ or kernels/ includes against the layer table (src/layers.txt).

Two rules: a layer includes only itself and the layers its row names (so report/ never reaches
cli/, the engine never reaches a workload); a pure layer includes no MPI, NCCL or CUDA header.
And the table says no more than the tree does: a row names only layers its files include, and
each of its paths owns a file (an arrow or a path nobody uses is one to remove, so that the
table is the architecture as it is).
Exit status 0 when every include is allowed, 1 with one line per offence otherwise (file:line,
the layer, what it included and from which layer), 2 on a bad table.

    scripts/check-layers.py [--root REPO]
"""
import argparse
import os
import re
import sys

SOURCE_DIRS = ("src", "kernels")
SUFFIXES = (".hpp", ".h", ".cpp", ".cu", ".cuh", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# The headers a pure layer may not include: MPI, NCCL, CUDA (runtime, driver, libraries, NVML).
# (NVML is the driver's management library, loaded at run time by the node readers: allowed.)
GPU_OR_MPI = re.compile(r"^(mpi|mpio|nccl|cuda|cub/|thrust/|nvtx|cublas|curand|cufft|"
                        r"driver_types|vector_types|device_launch|crt/|ucc)", re.IGNORECASE)


class Layer:
    def __init__(self, name, pure, uses, paths):
        self.name, self.pure, self.uses, self.paths = name, pure, uses, paths


def read_table(path):
    layers = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) < 4 or fields[1] not in ("pure", "-"):
                sys.exit(f"{path}:{number}: want 'layer pure|- uses path...', got {line!r}")
            uses = [] if fields[2] == "-" else fields[2].split(",")
            layers.append(Layer(fields[0], fields[1] == "pure", uses, fields[3:]))
    names = {layer.name for layer in layers}
    for layer in layers:
        for used in layer.uses:
            if used not in names:
                sys.exit(f"{path}: layer {layer.name} uses unknown layer {used}")
    return layers


def owner(layers, relpath):
    """The layer owning relpath (src/-relative, or kernels/...): the longest matching path."""
    best, best_len = None, -1
    for layer in layers:
        for p in layer.paths:
            if relpath.startswith(p) and len(p) > best_len:
                best, best_len = layer, len(p)
    return best


def resolve(root, includer_dir, target):
    """The layer path of a quoted include: beside the includer, under src/, or under kernels/."""
    for base in (includer_dir, os.path.join(root, "src"), os.path.join(root, "kernels")):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(candidate):
            return layer_path(root, candidate)
    if target == "version.hpp":  # generated from src/version.hpp.in
        return "version.hpp"
    return None


def show(quote, target):
    return f"<{target}>" if quote == "<" else f'"{target}"'


def layer_path(root, path):
    rel = os.path.relpath(path, root)
    return rel[len("src/"):] if rel.startswith("src" + os.sep) else rel


def check(root, layers):
    """The offences, and per layer the layers its files include and the paths that own a file."""
    offences = []
    used = {layer.name: set() for layer in layers}
    owning = set()
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = layer_path(root, path)
                layer = owner(layers, rel)
                if layer is None:
                    offences.append(f"{os.path.relpath(path, root)}: in no layer: add its folder "
                                    f"to src/layers.txt")
                    continue
                owning.add(owning_path(layer, rel))
                offences += check_file(root, path, layer, layers, used[layer.name])
    for layer in layers:
        unused = [u for u in layer.uses if u not in used[layer.name]]
        if unused:
            offences.append(f"src/layers.txt: {layer.name} may include {', '.join(unused)} and no file of it "
                            f"does: remove {'them' if len(unused) > 1 else 'it'} from its row")
        for p in layer.paths:
            if (layer.name, p) not in owning:
                offences.append(f"src/layers.txt: {layer.name}'s path {p} owns no file: remove it from its row")
    return offences


def owning_path(layer, relpath):
    """(layer, the longest of its paths that relpath starts with)."""
    return layer.name, max((p for p in layer.paths if relpath.startswith(p)), key=len)


def check_file(root, path, layer, layers, used):
    offences = []
    where = os.path.relpath(path, root)
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, target = m.groups()
            resolved = None if quote == "<" else resolve(root, os.path.dirname(path), target)
            if resolved is None:
                # a system or third-party header
                if layer.pure and GPU_OR_MPI.match(target):
                    offences.append(f"{where}:{number}: {layer.name} is pure and includes "
                                    f"{show(quote, target)}: no MPI, NCCL or CUDA header in a "
                                    f"pure layer")
                continue
            other = owner(layers, resolved)
            if other is not None and other is not layer:
                used.add(other.name)
            if other is None or other is layer or other.name in layer.uses:
                continue
            allowed = ", ".join(layer.uses) or "no other layer"
            offences.append(f"{where}:{number}: {layer.name} includes {show(quote, target)} of layer "
                            f"{other.name}; {layer.name} may include {allowed}")
    return offences


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the repository (default: this script's)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    layers = read_table(os.path.join(root, "src", "layers.txt"))
    offences = check(root, layers)
    for offence in offences:
        print(offence)
    if offences:
        print(f"check-layers: {len(offences)} offence(s) against src/layers.txt")
        return 1
    print(f"check-layers: every include of src/ and kernels/ follows src/layers.txt "
          f"({len(layers)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
