#!/usr/bin/env python3
"""The transport report and --require-transport on real GPUs (ctest label gpu; exit 77, skipped,
without a GPU). One rank per visible GPU:

  1. all_reduce --require-transport nvlink --json: the report line before the first table
     ("N ranks alike", peers via P2P), PASS, exit 0; the JSON's transport record (status pass,
     every peer P2P) valid against results/schema.
  2. the same on two nodes emulated with NCCL_HOSTID (scripts/emulate-nodes.sh), with
     --require-transport socket: NET/Socket between the halves, PASS, exit 0.
  3. the same with --require-transport ib where the machine has no RDMA device: FAIL with
     "fell back to sockets", exit 6, no table.
  4. commsweep ep with --require-transport nvlink and --bind auto: the report, the binding line.
  5. a user's NCCL_DEBUG=WARN: no capture, the report says why (exit 0); with a requirement,
     exit 6 ("cannot be verified").

    transport_check.py --commsweep BIN --mpiexec MPIEXEC --emulate scripts/emulate-nodes.sh \\
                       --schema SCHEMA --workdir DIR
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from commsweep_check import SKIP_CODE, Failures, gpu_count, launcher, run, verdict  # noqa: E402
from results_json import validate  # noqa: E402

BOUND_S = 240
QUICK = ["all_reduce", "-b", "8", "-e", "1M", "-w", "1", "-n", "2", "--backend", "nccl"]


def clean_env():
    """The environment without the user's NCCL_DEBUG*: the capture is what is tested."""
    for k in ("NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS"):
        os.environ.pop(k, None)


def launch(opts, name, np, args, fail, emulate=False, env=None):
    workdir = os.path.join(opts.workdir, name)
    os.makedirs(workdir, exist_ok=True)
    saved = dict(os.environ)
    os.environ.update(env or {})
    if emulate:
        os.environ["COMMSWEEP_RANKS_PER_NODE"] = str(max(1, np // 2))
    cmd = launcher(opts.mpiexec, np) + ([opts.emulate] if emulate else []) + [opts.commsweep] + args
    print("running: " + " ".join(cmd), flush=True)
    try:
        rc, out, err, _, timed_out = run(cmd, BOUND_S, workdir)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    fail.check(not timed_out, "%s: did not finish within %d s" % (name, BOUND_S))
    return rc, out, err


def report_lines(out):
    head = out.split("# Collective test starting")[0].split("#       size")[0]
    return [l for l in head.splitlines() if l.startswith("# Transport")]


def check_nvlink(opts, np, fail):
    path = os.path.join(opts.workdir, "nvlink.json")
    rc, out, err = launch(opts, "nvlink", np, QUICK + ["--require-transport", "nvlink", "--json", path], fail)
    fail.check(rc == 0, "nvlink: exit %s: %s" % (rc, err[-600:]))
    lines = report_lines(out)
    fail.check(any(("%d ranks alike" % np) in l and "peers via P2P" in l for l in lines),
               "nvlink: no 'N ranks alike ... peers via P2P' line: %r" % lines)
    fail.check("# Transport: PASS --require-transport nvlink (every rank)" in lines, "nvlink: no PASS line")
    if fail.check(os.path.exists(path), "nvlink: no JSON"):
        with open(path) as f:
            doc = json.load(f)
        with open(opts.schema) as f:
            schema = json.load(f)
        errors = validate(doc, schema, schema)
        fail.check(not errors, "nvlink: JSON not valid: %s" % errors[:3])
        t = doc.get("transport", {})
        fail.check(t.get("status") == "pass", "nvlink: transport.status %r" % t.get("status"))
        ranks = t.get("ranks", [])
        fail.check(len(ranks) == np, "nvlink: %d transport ranks" % len(ranks))
        for r in ranks:
            fail.check(len(r["peers"]) == np - 1 and set(r["peers"].values()) == {"P2P"},
                       "nvlink: rank %s peers %s" % (r["rank"], r["peers"]))
    return out, err


def check_emulated(opts, np, fail):
    rc, out, err = launch(opts, "emulated_socket", np, QUICK + ["--require-transport", "socket"], fail, emulate=True)
    fail.check(rc == 0, "emulated socket: exit %s: %s" % (rc, err[-600:]))
    lines = report_lines(out)
    fail.check(any("NET/Socket" in l for l in lines), "emulated: no NET/Socket peer in %r" % lines)
    fail.check("# Transport: PASS --require-transport socket (every rank)" in lines, "emulated: no PASS line")
    ib = "/sys/class/infiniband"
    if os.path.isdir(ib) and os.listdir(ib):
        return out, err  # with RDMA devices NCCL may use them between the emulated nodes
    rc, out2, err2 = launch(opts, "emulated_ib", np, QUICK + ["--require-transport", "ib"], fail, emulate=True)
    fail.check(rc == 6, "emulated, ib required: exit %s, expected 6" % rc)
    fail.check(any(l.startswith("# Transport: FAIL --require-transport ib: rank ") and "fell back to sockets" in l
                   for l in report_lines(out2)), "emulated, ib required: no FAIL line naming a rank")
    fail.check("#       size" not in out2, "emulated, ib required: a table was printed")
    return out + out2, err + err2


def check_ep_and_bind(opts, np, fail):
    experts = 8 * np
    rc, out, err = launch(opts, "ep", np, ["ep", "--backend", "nccl", "--tokens", "64", "--hidden", "2048",
                                          "--experts", str(experts), "-w", "1", "-n", "2",
                                          "--require-transport", "nvlink", "--bind", "auto"], fail)
    fail.check(rc == 0, "ep: exit %s: %s" % (rc, err[-600:]))
    fail.check(any("PASS --require-transport nvlink" in l for l in out.splitlines()), "ep: no PASS line")
    binds = [l for l in out.splitlines() if l.startswith("# Binding (--bind auto)")]
    fail.check(binds and all("NUMA" in b or "not bound" in b for b in binds), "ep: binding lines %r" % binds)
    return out, err


def check_user_debug(opts, np, fail):
    env = {"NCCL_DEBUG": "WARN"}
    rc, out, err = launch(opts, "user_warn", np, QUICK, fail, env=env)
    fail.check(rc == 0, "NCCL_DEBUG=WARN: exit %s" % rc)
    fail.check(any("NCCL_DEBUG=WARN is yours" in l for l in report_lines(out)), "NCCL_DEBUG=WARN: no note")
    rc, out2, err2 = launch(opts, "user_warn_required", np, QUICK + ["--require-transport", "nvlink"], fail, env=env)
    fail.check(rc == 6 and "cannot be verified" in out2, "NCCL_DEBUG=WARN with a requirement: exit %s" % rc)
    return out + out2, err + err2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--emulate", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--workdir", required=True)
    opts = ap.parse_args()
    np, why = gpu_count()
    if np < 2:
        print("SKIP: transport checks need 2 GPUs or more (%s)" % (why or "%d GPU" % np))
        return SKIP_CODE
    os.makedirs(opts.workdir, exist_ok=True)
    clean_env()
    fail = Failures()
    out, err = "", ""
    for check in (check_nvlink, check_emulated, check_ep_and_bind, check_user_debug):
        o, e = check(opts, np, fail)
        out, err = out + o, err + e
    sys.stdout.write("\n".join(l for l in out.splitlines() if l.startswith(("# Transport", "# Binding"))) + "\n")
    return verdict(fail, "gpu transport", out, err)


if __name__ == "__main__":
    sys.exit(main())
