#!/usr/bin/env python3
"""The sweep's topology step under mpiexec -n 2 (mpi backend): with a known shape the ConfigMap
file is checked against each node (a fixture sysfs tree) and NCCL_TOPO_FILE set, a file that
does not match is refused on every rank with exit 2 naming the ranks (unless --force), the
user's NCCL_TOPO_FILE is kept, and without a shape nothing changes. Exit status: failures."""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import launcher, run  # noqa: E402

FAILURES = []


def sysfs_tree(root):
    for busid in ("0000:11:00.0", "0000:12:00.0", "0000:13:00.0", "0000:14:00.0"):
        os.makedirs(os.path.join(root, "sys/bus/pci/devices", busid), exist_ok=True)
    for nic in ("mlx5_0", "mlx5_1"):
        port = os.path.join(root, "sys/class/infiniband", nic, "ports/1")
        os.makedirs(port, exist_ok=True)
        with open(os.path.join(port, "state"), "w") as f:
            f.write("4: ACTIVE\n")


def case(name, a, tmp, args, env, rc, out_has=(), err_has=(), out_lacks=()):
    # Each run's stdout.txt and stderr.txt stay in --workdir for a look after a failure.
    workdir = os.path.join(a.workdir, name.replace(" ", "_").replace("'", ""))
    os.makedirs(workdir)
    saved = dict(os.environ)
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        cmd = launcher(a.mpiexec, 2) + [a.commsweep, "all_reduce", "--backend", "mpi", "-b", "8", "-e", "64",
                                         "-n", "1", "-w", "0", *args]
        code, out, err, _, timed_out = run(cmd, 60, workdir)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    problems = ["timed out"] if timed_out else []
    if code != rc:
        problems.append(f"exit {code}, expected {rc}")
    problems += [f"stdout lacks {s!r}" for s in out_has if s not in out]
    problems += [f"stderr lacks {s!r}" for s in err_has if s not in err]
    problems += [f"stdout has {s!r}" for s in out_lacks if s in out]
    print(("PASS " if not problems else "FAIL ") + name)
    if problems:
        FAILURES.append(name)
        print("  " + "; ".join(problems) + "\n  command: " + " ".join(cmd) + "\n  stdout:\n" + out[-3000:] +
              "\n  stderr:\n" + err[-3000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    tmp = tempfile.mkdtemp(prefix="commsweep-topo-mpi-")
    try:
        node = os.path.join(tmp, "node")
        sysfs_tree(node)
        mount = os.path.join(tmp, "mount")
        os.makedirs(mount)
        shutil.copy(os.path.join(a.fixtures, "good.xml"), os.path.join(mount, "TEST.GPU.2.xml"))
        env = {"COMMSWEEP_SHAPES_DIR": a.fixtures, "COMMSWEEP_TOPOLOGY_DIR": mount, "COMMSWEEP_SYSFS_ROOT": node,
               "COMMSWEEP_LABELS_FILE": os.path.join(tmp, "no-labels"), "COMMSWEEP_SHAPE": None, "NCCL_TOPO_FILE": None}
        mounted = os.path.join(mount, "TEST.GPU.2.xml")
        case("matching file is used", a, tmp, ["--shape", "TEST.GPU.2"], env, 0,
             out_has=["# shape TEST.GPU.2 (--shape TEST.GPU.2); topology: NCCL_TOPO_FILE=" + mounted +
                      " (the ConfigMap mount, shape TEST.GPU.2): 2 GPUs and 2 NICs, all present on this node"])
        case("shape from COMMSWEEP_SHAPE", a, tmp, [], dict(env, COMMSWEEP_SHAPE="TEST.GPU.2"), 0,
             out_has=["# shape TEST.GPU.2 (COMMSWEEP_SHAPE=TEST.GPU.2)"])
        user = os.path.join(tmp, "mine.xml")
        shutil.copy(os.path.join(a.fixtures, "good.xml"), user)
        case("user's NCCL_TOPO_FILE is kept", a, tmp, ["--shape", "TEST.GPU.2"], dict(env, NCCL_TOPO_FILE=user), 0,
             out_has=["NCCL_TOPO_FILE=" + user + " (NCCL_TOPO_FILE as set by the user"])
        case("no shape: no topology step", a, tmp, [], env, 0, out_lacks=["topology", "# shape"])
        shutil.rmtree(os.path.join(node, "sys/class/infiniband/mlx5_1"))
        case("mismatch refused on every rank", a, tmp, ["--shape", "TEST.GPU.2"], env, 2,
             err_has=["rank 0 (", "rank 1 (", "does not match this node", "NIC 'mlx5_1' is not on this node", "--force"])
        case("--force runs anyway", a, tmp, ["--shape", "TEST.GPU.2", "--force"], env, 0,
             out_has=["used despite --force although it does not match this node"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(FAILURES)} failed" if FAILURES else "all passed")
    return min(len(FAILURES), 100)


if __name__ == "__main__":
    sys.exit(main())
