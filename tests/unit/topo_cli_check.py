#!/usr/bin/env python3
"""`commsweep topo` end to end (no MPI): validate on the fixture files and fixture sysfs trees,
generate --check against the checked-in topology/, the exit codes and the messages a user reads.
Every case prints PASS/FAIL; the exit status is the number of failures (0: all passed)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def run(cmd, env=None, timeout=60, cwd=None):
    full_env = dict(os.environ)
    full_env.pop("COMMSWEEP_SHAPE", None)
    full_env["COMMSWEEP_LABELS_FILE"] = "/nonexistent/labels"
    full_env.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def expect(name, cmd, rc, out_has=(), err_has=(), env=None, cwd=None):
    code, out, err = run(cmd, env, cwd=cwd)
    problems = []
    if code != rc:
        problems.append(f"exit {code}, expected {rc}")
    problems += [f"stdout lacks {s!r}" for s in out_has if s not in out]
    problems += [f"stderr lacks {s!r}" for s in err_has if s not in err]
    print(("PASS " if not problems else "FAIL ") + name)
    if problems:
        FAILURES.append(name)
        print("  " + "; ".join(problems))
        print("  command: " + " ".join(cmd))
        print("  stdout: " + out.replace("\n", "\n          "))
        print("  stderr: " + err.replace("\n", "\n          "))


def sysfs_tree(root, down=()):
    for busid in ("0000:11:00.0", "0000:12:00.0", "0000:13:00.0", "0000:14:00.0"):
        os.makedirs(os.path.join(root, "sys/bus/pci/devices", busid), exist_ok=True)
    for nic in ("mlx5_0", "mlx5_1"):
        port = os.path.join(root, "sys/class/infiniband", nic, "ports/1")
        os.makedirs(port, exist_ok=True)
        with open(os.path.join(port, "state"), "w") as f:
            f.write("1: DOWN\n" if nic in down else "4: ACTIVE\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--topology", required=True)
    a = ap.parse_args()
    cs, fx = a.commsweep, a.fixtures
    tmp = tempfile.mkdtemp(prefix="commsweep-topo-cli-")
    try:
        node = os.path.join(tmp, "node")
        sysfs_tree(node)
        down = os.path.join(tmp, "down")
        sysfs_tree(down, down=("mlx5_1",))
        shape = ["--shape", "TEST.GPU.2", "--descriptions", fx]

        def validate(f, *extra):
            return [cs, "topo", "validate", os.path.join(fx, f), *extra]

        expect("validate good file on its node", validate("good.xml", *shape, "--sysfs-root", node), 0,
               out_has=["good.xml: valid: 2 GPUs, 2 NICs (2 ports)", "bus ids and active NIC ports"])
        expect("validate malformed names the line", validate("malformed.xml", *shape, "--no-node"), 2,
               err_has=["malformed.xml:24: not well-formed XML: </cpu> closes <pci> opened on line 3", "INVALID"])
        expect("validate missing GPU", validate("missing_gpu.xml", *shape, "--no-node"), 2,
               err_has=["1 GPUs, TEST.GPU.2 has 2 (missing the shape's 0000:13:00.0)"])
        expect("validate wrong NIC name", validate("wrong_nic.xml", *shape, "--no-node"), 2,
               err_has=["wrong_nic.xml:21: NIC 'mlx5_7' is not one of TEST.GPU.2's RDMA NICs"])
        expect("validate refuses DOCTYPE with entity", validate("doctype_entity.xml", *shape, "--no-node"), 2,
               err_has=["doctype_entity.xml:2: not well-formed XML: DOCTYPE refused"])
        expect("validate port down", validate("good.xml", *shape, "--sysfs-root", down), 2,
               err_has=["NIC mlx5_1 is not active (port 1 '1: DOWN')"])
        expect("validate on a node without the devices", validate("good.xml", *shape, "--sysfs-root", tmp), 2,
               err_has=["GPU 0000:11:00.0 is not on this node", "NIC 'mlx5_0' is not on this node"])
        expect("validate takes the shape from COMMSWEEP_SHAPE",
               validate("missing_gpu.xml", "--descriptions", fx, "--no-node"), 2,
               out_has=["# shape TEST.GPU.2 (COMMSWEEP_SHAPE=TEST.GPU.2)"], err_has=["1 GPUs"],
               env={"COMMSWEEP_SHAPE": "TEST.GPU.2"})
        expect("validate without a file", [cs, "topo", "validate"], 2, err_has=["give the topology file"])
        expect("validate an absent file", validate("absent.xml", "--no-node"), 2, err_has=["absent.xml: cannot read"])
        expect("unknown shape lists the known ones", validate("good.xml", "--shape", "BM.NOPE", "--no-node"), 2,
               err_has=["unknown shape 'BM.NOPE'", "BM.GPU.H100.8"])
        expect("unknown verb", [cs, "topo", "frobnicate"], 2, err_has=["unknown verb 'frobnicate'"])
        expect("checked-in topology/ is up to date", [cs, "topo", "generate", "--check", "--out", a.topology], 0,
               out_has=["5 shapes: every file in " + a.topology + " up to date"])
        copy = os.path.join(tmp, "topology")
        shutil.copytree(a.topology, copy)
        with open(os.path.join(copy, "BM.GPU.H200.8.conf"), "a") as f:
            f.write("NCCL_IB_HCA=mlx5\n")
        expect("generate --check names a stale file", [cs, "topo", "generate", "--check", "--out", copy], 2,
               err_has=["BM.GPU.H200.8.conf: out of date with its description (commsweep topo generate --out "
                        + copy + " writes it)"])
        os.remove(os.path.join(copy, "BM.GPU.H100.8.xml"))
        expect("generate --check names a missing file", [cs, "topo", "generate", "--check", "--out", copy], 2,
               err_has=["BM.GPU.H100.8.xml: missing (commsweep topo generate --out " + copy + " writes it)"])
        # Outside the repository (no topology/ here): refused, saying where it looked, not 10 files stale.
        elsewhere = os.path.join(tmp, "elsewhere")
        os.makedirs(elsewhere)
        expect("generate --check outside the repository", [cs, "topo", "generate", "--check"], 2,
               err_has=["--check: topology (" + os.path.join(elsewhere, "topology") + ") is not a folder, so there is "
                        "nothing to compare with: run it in the repository's root, or name the generated files' "
                        "folder with --out DIR"], cwd=elsewhere)
        out = os.path.join(tmp, "generated")
        expect("generate writes xml and conf", [cs, "topo", "generate", "--shape", "TEST.GPU.2", "--descriptions", fx,
                                                "--out", out], 0, out_has=["TEST.GPU.2.xml", "TEST.GPU.2.conf"])
        with open(os.path.join(out, "TEST.GPU.2.xml")) as g, open(os.path.join(fx, "good.xml")) as f:
            same = g.read() == f.read()
        print(("PASS " if same else "FAIL ") + "generated TEST.GPU.2.xml equals fixtures/topology/good.xml")
        if not same:
            FAILURES.append("generated equals good.xml")
        labels = os.path.join(tmp, "labels")
        with open(labels, "w") as f:
            f.write('node.kubernetes.io/instance-type="BM.GPU.H200.8"\n')
        expect("detect reads the instance-type label", [cs, "topo", "detect"], 0,
               out_has=["BM.GPU.H200.8 (instance-type label BM.GPU.H200.8 in " + labels], env={"COMMSWEEP_LABELS_FILE": labels})
        expect("detect without any source", [cs, "topo", "detect"], 2, err_has=["shape unknown"])
        expect("shapes lists the manifest hints", [cs, "topo", "shapes"], 0,
               out_has=["BM.GPU.H100.8: 8 x H100 80GB; 16 RDMA ports", "BM.GPU.B4.8: 8 x B200 180GB"])
        # Without a GPU build or a GPU, dump says why and exits 3 (a call failed).
        expect("dump without GPU says why", [cs, "topo", "dump", "--out", os.path.join(tmp, "d.xml")], 3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(FAILURES)} failed" if FAILURES else "all passed")
    return min(len(FAILURES), 100)


if __name__ == "__main__":
    sys.exit(main())
