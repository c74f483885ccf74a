#!/usr/bin/env python3
"""The fabric commands run for real, each bounded in time:

  preflight-live:    mpiexec -n 2 commsweep preflight --json on this machine: one table from
                     rank 0 for one host and 2 ranks, "no RDMA devices" said plainly as a WARN
                     (CI and the GPU machines have none), the JSON file matching the table, the
                     exit code 6 exactly when a row FAILs.
  preflight-fixture: the same on the RoCE/SR-IOV fixture tree: exit code 6, the FAIL rows; then
                     GPUDirect RDMA readiness and gdrcopy on the gdr_* trees (commsweep
                     preflight --sysfs-root, no mpiexec): peermem present, absent, dma-buf.
  env:               commsweep env on the fixture tree, its output eval'd by bash; a user
                     NCCL_IB_HCA naming a device the pod lacks: exit 2, the device named.
  transport:         commsweep transport on the NCCL log fixtures with --require-transport.
  run-flags:         the fabric flags of the measuring commands (TEST..., ep, suite) under
                     mpiexec -n 2 on the mpi backend: --require-transport / --require-gdr are
                     usage errors there (exit 2, the flag named), bad values too; --bind auto
                     prints its line in the preamble and the run passes; the brief preflight
                     runs before ep and suite (once) unless --no-preflight; no "transport" in
                     the results JSON of an mpi run.

    fabric_check.py MODE --commsweep BIN --mpiexec MPIEXEC --fixtures DIR --workdir DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import Failures, gpu_count, launcher, run, verdict  # noqa: E402

BOUND_S = 60


def rows(out):
    """(host, check, status, reason) of each table row."""
    found = []
    for line in out.splitlines():
        m = re.match(r"^  (\S+)\s+(\S+)\s+(PASS|WARN|FAIL)\s+(.*)$", line)
        if m:
            found.append(m.groups())
    return found


def check_table_against_json(out, doc, fail):
    table = rows(out)
    flat = [(h["host"], c["check"], c["status"]) for h in doc["hosts"] for c in h["checks"]]
    fail.check([r[:3] for r in table] == flat, "the table's rows differ from the JSON's")
    fails = sum(1 for r in table if r[2] == "FAIL")
    fail.check(doc["summary"]["fail"] == fails, "summary.fail %s, the table has %d FAIL rows"
               % (doc["summary"]["fail"], fails))
    return table


def preflight(opts, extra, workdir, fail):
    json_path = os.path.join(workdir, "preflight.json")
    if os.path.exists(json_path):
        os.remove(json_path)
    cmd = launcher(opts.mpiexec, 2) + [opts.commsweep, "preflight", "--json", json_path] + extra
    print("running: " + " ".join(cmd), flush=True)
    rc, out, err, _, timed_out = run(cmd, BOUND_S, workdir)
    fail.check(not timed_out, "did not finish within %d s" % BOUND_S)
    fail.check(out.count("# commsweep preflight:") == 1, "not exactly one table (rank 0 only)")
    fail.check("# commsweep preflight: 1 host, 2 ranks" in out, "the header does not say 1 host, 2 ranks")
    doc = None
    if fail.check(os.path.exists(json_path), "--json wrote no file"):
        with open(json_path) as f:
            doc = json.load(f)
        fail.check(doc.get("schema") == "commsweep.preflight/1", "schema is %s" % doc.get("schema"))
    return rc, out, err, doc


def check_preflight_live(opts, fail):
    rc, out, err, doc = preflight(opts, [], opts.workdir, fail)
    if doc is None:
        return out, err
    table = check_table_against_json(out, doc, fail)
    has_fail = any(r[2] == "FAIL" for r in table)
    fail.check(rc == (6 if has_fail else 0), "exit code %s with%s FAIL rows" % (rc, "" if has_fail else "out"))
    devices = [r for r in table if r[1] == "rdma.devices"]
    ib = "/sys/class/infiniband"
    if not (os.path.isdir(ib) and os.listdir(ib)):
        fail.check(len(devices) == 1 and devices[0][2] == "WARN" and devices[0][3].startswith("no RDMA devices"),
                   "no 'rdma.devices WARN no RDMA devices' row on a machine without RDMA devices")
    for check in ("host.memlock", "host.ipc_lock", "host.iommu", "host.gpudirect", "host.gdrcopy", "host.shm",
                  "host.pcie_acs"):
        fail.check(any(r[1] == check for r in table), "no %s row" % check)
    fail.check(any(r[1].startswith("locality") for r in table), "no locality row")
    return out, err


def check_preflight_fixture(opts, fail):
    root = os.path.join(opts.fixtures, "roce_sriov")
    rc, out, err, doc = preflight(opts, ["--sysfs-root", root], opts.workdir, fail)
    fail.check(rc == 6, "exit code %s, expected 6 (preflight failed)" % rc)
    if doc is not None:
        table = check_table_against_json(out, doc, fail)
        failed = sorted(r[1] for r in table if r[2] == "FAIL")
        fail.check(failed == ["host.iommu", "host.ipc_lock", "host.memlock", "host.shm"],
                   "FAIL rows %s" % failed)
        fail.check(doc["hosts"][0]["rdma_devices"][1]["name"] == "mlx5_2", "the JSON lacks the devices")
    gdr_out, gdr_err = check_gpudirect_fixtures(opts, fail)
    return out + gdr_out, err + gdr_err


# Per gdr_* tree (tests/fixtures/sysfs): host.gpudirect's and host.gdrcopy's status and a piece
# of each reason. WARNs leave the exit code 0.
GPUDIRECT_FIXTURES = [
    ("gdr_peermem", ("PASS", "nvidia_peermem loaded"), ("PASS", "gdrdrv loaded (character device 235) and /dev/gdrdrv present")),
    ("gdr_absent", ("WARN", "kernel 5.4.0-150-generic < 5.12; the proprietary kernel module 535.129.03"),
     ("WARN", "no gdrdrv module")),
    ("gdr_dmabuf", ("PASS", "dma-buf: kernel 6.8.0-49-generic >= 5.12 and the NVIDIA open kernel module 550.54.15"),
     ("WARN", "no /dev/gdrdrv here")),
]


def check_gpudirect_fixtures(opts, fail):
    outs = ""
    for tree, gpudirect, gdrcopy in GPUDIRECT_FIXTURES:
        rc, out, err = commsweep(opts, ["preflight", "--sysfs-root", os.path.join(opts.fixtures, tree)], {}, fail)
        fail.check(rc == 0, "preflight on %s: exit code %s, expected 0 (WARNs only): %s" % (tree, rc, err[-300:]))
        found = {r[1]: (r[2], r[3]) for r in rows(out)}
        for check, (status, text) in (("host.gpudirect", gpudirect), ("host.gdrcopy", gdrcopy)):
            got = found.get(check)
            fail.check(got is not None and got[0] == status and text in got[1],
                       "%s: %s is %r, expected %s with %r" % (tree, check, got, status, text))
        outs += out
    return outs, ""


def commsweep(opts, args, env_extra, fail):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "UCX_", "PCIDEVICE_"))}
    env.update(env_extra)
    p = subprocess.run([opts.commsweep] + args, capture_output=True, text=True, timeout=BOUND_S, env=env)
    return p.returncode, p.stdout, p.stderr


def check_env(opts, fail):
    root = os.path.join(opts.fixtures, "roce_sriov")
    rc, out, err = commsweep(opts, ["env", "--sysfs-root", root], {}, fail)
    fail.check(rc == 0, "commsweep env: exit code %s" % rc)
    script = out + '\nprintf "%s|%s|%s|%s" "$NCCL_IB_HCA" "$UCX_NET_DEVICES" "$NCCL_IB_GID_INDEX" "$NCCL_SOCKET_IFNAME"\n'
    shown = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=BOUND_S).stdout
    fail.check(shown == "=mlx5_2,mlx5_3|mlx5_2:1,mlx5_3:1|3|=eth0", "after eval: %r" % shown)
    # A device plugin variable that names one VF only.
    rc, out2, _ = commsweep(opts, ["env", "--sysfs-root", root, "--annotations", "/dev/null"],
                            {"PCIDEVICE_NVIDIA_COM_SRIOV_RDMA": "0000:18:00.3"}, fail)
    fail.check(rc == 0 and "export NCCL_IB_HCA='=mlx5_3'" in out2, "PCIDEVICE_ -> mlx5_3: %r" % out2)
    rc, out3, err3 = commsweep(opts, ["env", "--sysfs-root", root], {"NCCL_IB_HCA": "=mlx5_2,mlx5_9"}, fail)
    fail.check(rc == 2, "a user NCCL_IB_HCA naming mlx5_9: exit code %s, expected 2" % rc)
    fail.check("mlx5_9" in err3 and "FAIL" in err3, "stderr does not name mlx5_9: %r" % err3)
    fail.check(out3 == "", "stdout not empty on FAIL (an eval would apply half the settings)")
    rc, _, err4 = commsweep(opts, ["env", "--sysfs-root", root], {"PCIDEVICE_X": "not-a-pci"}, fail)
    fail.check(rc == 2 and "PCIDEVICE_X" in err4, "a bad PCIDEVICE_X: exit %s, %r" % (rc, err4))
    return out + out3, err3


def check_transport(opts, fail):
    logs = os.path.join(os.path.dirname(opts.fixtures), "nccl")
    roce = [os.path.join(logs, n) for n in ("roce_gdr.node-a.log", "roce_gdr.node-b.log")]
    rc, out, err = commsweep(opts, ["transport", "--require-transport", "roce", "--require-gdr"] + roce, {}, fail)
    fail.check(rc == 0, "RoCE + GDR logs, --require-transport roce --require-gdr: exit %s" % rc)
    fail.check(out.count("network IB [mlx5_2:1/RoCE mlx5_3:1/RoCE] RoCE, GDR on (DMA-BUF)") == 2, "per-rank lines: %r" % out)
    sock = [os.path.join(logs, "socket_fallback.log")]
    rc, out2, err2 = commsweep(opts, ["transport", "--require-transport", "ib"] + sock, {}, fail)
    fail.check(rc == 6 and "fell back to sockets" in err2, "socket fallback with ib required: exit %s, %r" % (rc, err2))
    rc, _, err3 = commsweep(opts, ["transport", "--require-transport", "tcp"] + sock, {}, fail)
    fail.check(rc == 2 and "--require-transport" in err3, "a bad --require-transport: exit %s" % rc)
    return out + out2, err + err2 + err3


def mpi_run(opts, name, np, args, fail):
    """commsweep ARGS under mpiexec -n NP, its output kept in workdir/NAME."""
    workdir = os.path.join(opts.workdir, name)
    os.makedirs(workdir, exist_ok=True)
    cmd = launcher(opts.mpiexec, np) + [opts.commsweep] + args
    print("running: " + " ".join(cmd), flush=True)
    rc, out, err, _, timed_out = run(cmd, BOUND_S, workdir)
    fail.check(not timed_out, "%s: did not finish within %d s" % (name, BOUND_S))
    return rc, out, err


def check_run_flags(opts, fail):
    quick = ["-e", "1K", "-w", "1", "-n", "2"]
    ep_quick = ["--tokens", "16", "--hidden", "256", "--topk", "2", "--experts", "8", "-w", "1", "-n", "2"]
    suite_file = os.path.join(opts.workdir, "fabric_suite.yaml")
    with open(suite_file, "w") as f:
        f.write("- name: small\n  kind: collective\n  tests: [all_reduce]\n  max_bytes: 1K\n  iters: 2\n"
                "- name: moe\n  kind: ep\n  tokens: 16\n  hidden: 256\n  topk: 2\n  experts: 8\n  iters: 2\n")
    usage = [
        ("sweep_mpi_require_ib", ["all_reduce", "--backend", "mpi", "--require-transport", "ib"] + quick,
         "--require-transport: the mpi backend makes no NCCL connections to verify (--backend mpi)"),
        ("sweep_auto_require_gdr", ["all_reduce", "--require-gdr"] + quick,
         "--require-gdr: the mpi backend makes no NCCL connections to verify (backend mpi:"),
        ("ep_mpi_require_nvlink", ["ep", "--backend", "mpi", "--require-transport", "nvlink"] + ep_quick,
         "--require-transport: the mpi backend"),
        ("suite_mpi_require_gdr", ["suite", suite_file, "--backend", "mpi", "--require-gdr"],
         "--require-gdr: the mpi backend"),
        ("pairs_mpi_require_ib", ["pairs", "--backend", "mpi", "--require-transport", "ib", "-s", "1K"],
         "--require-transport: the mpi backend makes no NCCL connections to verify (--backend mpi)"),
        ("bad_transport", ["all_reduce", "--require-transport", "tcp"] + quick,
         "--require-transport: 'tcp' is not ib, roce, socket or nvlink"),
        ("bad_bind", ["ep", "--bind", "numa"] + ep_quick, "--bind: 'numa' is not auto or none"),
    ]
    if gpu_count()[0] > 0:
        # With GPUs, --backend auto picks nccl and the requirement is judged for real (tests/gpu).
        usage = [u for u in usage if u[0] != "sweep_auto_require_gdr"]
    outs, errs = "", ""
    for name, args, message in usage:
        rc, out, err = mpi_run(opts, name, 2, args, fail)
        fail.check(rc == 2, "%s: exit code %s, expected 2 (usage)" % (name, rc))
        fail.check(message in err, "%s: stderr does not say %r: %r" % (name, message, err[-400:]))
        fail.check("out-of-place" not in out, "%s: a table was printed" % name)
        outs, errs = outs + out, errs + err
    # --bind auto on every measuring command: the line is in the preamble, the run passes.
    json_path = os.path.join(opts.workdir, "bind_sweep.json")
    runs = [
        ("sweep_bind", ["all_reduce", "--backend", "mpi", "--bind", "auto", "--json", json_path] + quick, True),
        ("ep_bind", ["ep", "--backend", "mpi", "--bind", "auto"] + ep_quick, True),
        ("ep_no_preflight", ["ep", "--backend", "mpi", "--no-preflight"] + ep_quick, False),
        ("suite_bind", ["suite", suite_file, "--backend", "mpi", "--bind", "auto"], True),
    ]
    for name, args, preflight in runs:
        rc, out, err = mpi_run(opts, name, 2, args, fail)
        fail.check(rc == 0, "%s: exit code %s: %s" % (name, rc, err[-400:]))
        count = out.count("# preflight: ")
        fail.check(count == (1 if preflight else 0), "%s: %d brief preflight lines" % (name, count))
        binds = [l for l in out.splitlines() if l.startswith("# Binding (--bind auto), host ")]
        if "--bind" in args:
            # One line for the one host; ranks with the same answer share it ("ranks 0, 1: ...").
            fail.check(len(binds) == 1 and ("ranks 0, 1: " in binds[0] or
                                            ("rank 0 " in binds[0] and "rank 1 " in binds[0])),
                       "%s: binding line %r" % (name, binds))
            before_table = out.split("# Collective test starting")[0].split("#  Rank")[0]
            fail.check(all(b in before_table for b in binds), "%s: the binding line is not before the table" % name)
        fail.check("# Transport" not in out, "%s: a transport report on the mpi backend" % name)
        outs, errs = outs + out, errs + err
    if fail.check(os.path.exists(json_path), "sweep_bind: no JSON written"):
        with open(json_path) as f:
            doc = json.load(f)
        fail.check("transport" not in doc, "an mpi run's results have a \"transport\" key")
    return outs, errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["preflight-live", "preflight-fixture", "env", "transport", "run-flags"])
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--fixtures", required=True, help="tests/fixtures/sysfs")
    ap.add_argument("--workdir", required=True)
    opts = ap.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    fail = Failures()
    check = {"preflight-live": check_preflight_live, "preflight-fixture": check_preflight_fixture,
             "env": check_env, "transport": check_transport, "run-flags": check_run_flags}[opts.mode]
    out, err = check(opts, fail)
    sys.stdout.write(out)
    return verdict(fail, "fabric " + opts.mode, out, err)


if __name__ == "__main__":
    sys.exit(main())
