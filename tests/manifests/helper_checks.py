"""Checks of scripts/commsweep-k8s (deploy --dry-run, bad input) and of the image's layout
(volcano/Dockerfile, scripts/install-prefix.sh). Run through check_manifests.py."""
import os
import re
import shutil
import subprocess

import yaml

import rules
from stage import helper, one_job

USAGE_CODE = 2

DEPLOYS = [
    # (arguments, expected shape, mode, workers, test id, namespace, extra checks)
    (["--shape", "BM.GPU.H100.8", "--nodes", "2", "--namespace", "gpu", "--test-id", "a1"],
     "BM.GPU.H100.8", "roce-sriov", 2, "a1", "gpu", {}),
    (["--shape", "BM.GPU.A100-v2.8", "--mode", "ib", "--nodes", "4", "--namespace", "bench",
      "--test-id", "a100-ib", "--queue", "gpu-q", "--deadline", "900",
      "--image", "reg.example:5000/commsweep:1.2", "--", "all_reduce", "-b", "8", "-e", "8G"],
     "BM.GPU.A100-v2.8", "ib", 4, "a100-ib", "bench",
     {"queue": "gpu-q", "deadline": 900, "image": "reg.example:5000/commsweep:1.2",
      "args": ["all_reduce", "-b", "8", "-e", "8G"]}),
    (["--shape", "BM.GPU.H200.8", "--mode", "tcp", "--nodes", "1", "--test-id", "h200-tcp",
      "--node-selector", "none"],
     "BM.GPU.H200.8", "tcp", 1, "h200-tcp", "default", {"node_selector": None}),
    (["--shape", "BM.GPU4.8", "--test-id", "pool-a", "--node-selector", "example.com/pool=gpu-a"],
     "BM.GPU4.8", "roce-sriov", 2, "pool-a", "default", {"node_selector": {"example.com/pool": "gpu-a"}}),
    (["--shape", "BM.GPU.B4.8", "--mode", "roce-sriov", "--nodes", "100", "--test-id",
      "b" * 40, "--image", "reg.example/commsweep@sha256:" + "0" * 64],
     "BM.GPU.B4.8", "roce-sriov", 100, "b" * 40, "default",
     {"image": "reg.example/commsweep@sha256:" + "0" * 64}),
]

BAD_INPUT = [
    (["deploy", "--shape", "BM.GPU.X9.8"], "--shape BM.GPU.X9.8: unknown shape; known: BM.GPU.A100-v2.8"),
    (["deploy", "--mode", "infiniband"], "--mode infiniband: unknown fabric mode; known: ib roce-sriov tcp"),
    (["deploy", "--nodes", "0"], "--nodes '0'"),
    (["deploy", "--nodes", "two"], "--nodes 'two'"),
    (["deploy", "--nodes", "5000"], "--nodes 5000: more than"),
    (["deploy", "--nodes"], "--nodes needs a value"),
    (["deploy", "--nodes", "--dry-run"], "--nodes needs a value"),
    (["deploy", "--test-id", "Nightly_1"], "--test-id 'Nightly_1': use lower-case"),
    (["deploy", "--nodes", "100", "--test-id", "c" * 41], "at most 40 fit"),
    (["deploy", "--deadline", "10m"], "--deadline '10m'"),
    (["deploy", "--node-selector", "pool"], "--node-selector 'pool': expected KEY=VALUE"),
    (["deploy", "--frobnicate"], "unknown option '--frobnicate'"),
    (["launch"], "unknown command 'launch'"),
    (["status"], "status needs --test-id"),
    (["logs", "--test-id", "x", "--rank"], "--rank needs a value"),
]


def run_helper(stage, argv):
    return subprocess.run([stage.path("scripts", "commsweep-k8s")] + argv,
                          capture_output=True, text=True, timeout=120)


def check_deploy(stage, case, failures):
    argv, shape, mode, workers, test_id, namespace, extra = case
    where = "deploy --dry-run " + " ".join(argv)
    proc = helper(stage, "deploy", "--dry-run", *argv)
    if "dry run: would run 'kubectl apply -f -'" not in proc.stderr:
        failures.append("%s: stderr does not say what it would run: %s" % (where, proc.stderr))
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    job = one_job(docs, where, failures)
    if job is None:
        return
    expect = rules.Expect(shape, mode, workers=workers, job_name="commsweep-" + test_id,
                          namespace=namespace, test_id=test_id,
                          default_node_selector="node_selector" not in extra)
    failures.extend_with(where, rules.check_job(docs, job, expect))
    for d in docs:
        meta = d["metadata"]
        if meta.get("namespace") != namespace or meta.get("labels", {}).get(rules.TEST_ID_LABEL) != test_id:
            failures.append("%s: %s %s is not in namespace %s with test id %s"
                            % (where, d["kind"], meta["name"], namespace, test_id))
    check_extra(where, job, extra, failures)


def check_extra(where, job, extra, failures):
    tasks = job["spec"]["tasks"]
    if "queue" in extra and job["spec"].get("queue") != extra["queue"]:
        failures.append("%s: queue %r" % (where, job["spec"].get("queue")))
    for t in tasks:
        pod = t["template"]["spec"]
        if "deadline" in extra and pod.get("activeDeadlineSeconds") != extra["deadline"]:
            failures.append("%s: %s activeDeadlineSeconds %r" % (where, t["name"], pod.get("activeDeadlineSeconds")))
        if "image" in extra and pod["containers"][0]["image"] != extra["image"]:
            failures.append("%s: %s image %r" % (where, t["name"], pod["containers"][0]["image"]))
    if "node_selector" in extra and tasks[1]["template"]["spec"].get("nodeSelector") != extra["node_selector"]:
        failures.append("%s: nodeSelector %r" % (where, tasks[1]["template"]["spec"].get("nodeSelector")))
    args = tasks[0]["template"]["spec"]["containers"][0].get("args")
    if args != extra.get("args", []):
        failures.append("%s: master args %r, expected %r" % (where, args, extra.get("args", [])))


def check_bad_input(stage, failures):
    for argv, message in BAD_INPUT:
        proc = run_helper(stage, argv + ["--dry-run"] if argv[0] == "deploy" else argv)
        if proc.returncode != USAGE_CODE or message not in proc.stderr:
            failures.append("commsweep-k8s %s: exit %d (expected %d), stderr %r lacks %r"
                            % (" ".join(argv), proc.returncode, USAGE_CODE, proc.stderr.strip(), message))


def check_help_and_cleanup(stage, failures):
    proc = helper(stage, "--help")
    for word in ("deploy", "status", "logs", "results", "cleanup", "--dry-run", "roce-sriov", "Examples"):
        if word not in proc.stdout:
            failures.append("--help does not mention %s" % word)
    proc = helper(stage, "cleanup", "--test-id", "a1", "--namespace", "gpu", "--dry-run")
    want = "would run kubectl -n gpu delete jobs.batch.volcano.sh,configmaps -l app.kubernetes.io/instance=a1"
    if want not in proc.stderr:
        failures.append("cleanup --dry-run printed %r, expected %r" % (proc.stderr.strip(), want))


def check_missing_topology(stage, failures):
    os.remove(stage.path("topology", "BM.GPU.H200.8.xml"))
    proc = run_helper(stage, ["deploy", "--dry-run", "--test-id", "t1"])
    if proc.returncode != USAGE_CODE or "topology/BM.GPU.H200.8.xml is missing" not in proc.stderr:
        failures.append("a missing topology file: exit %d, stderr %r"
                        % (proc.returncode, proc.stderr.strip()))


def cmd_helper(args, stage, failures):
    for case in DEPLOYS:
        check_deploy(stage, case, failures)
    check_bad_input(stage, failures)
    check_help_and_cleanup(stage, failures)
    check_missing_topology(stage, failures)
    print("ok: %d deploys, %d bad inputs checked" % (len(DEPLOYS), len(BAD_INPUT)))


SHELL_SCRIPTS = ["scripts/commsweep-k8s", "scripts/build.sh", "scripts/install-prefix.sh",
                 "volcano/nightly/runner/run-nightly.sh"]


def install_env_home(repo):
    with open(os.path.join(repo, "volcano", "base", "install.env")) as f:
        for line in f:
            if line.startswith("COMMSWEEP_HOME="):
                return line.split("=", 1)[1].strip()
    return None


def check_dockerfile(repo, failures):
    home = rules.dockerfile_home(repo)
    if home is None or home != install_env_home(repo):
        failures.append("volcano/Dockerfile's COMMSWEEP_HOME %r differs from volcano/base/install.env's %r"
                        % (home, install_env_home(repo)))
    with open(os.path.join(repo, "volcano", "Dockerfile")) as f:
        text = f.read()
    check_dockerfile_keys(repo, text, failures)
    for script in sorted(set(re.findall(r"scripts/[\w.-]+\.sh", text))):
        if not os.access(os.path.join(repo, script), os.X_OK):
            failures.append("volcano/Dockerfile runs %s, which is not an executable in the repository" % script)


def dockerfile_runs(text):
    """The Dockerfile's RUN instructions, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    return [line[4:] for line in joined.splitlines() if line.startswith("RUN ")]


def check_dockerfile_keys(repo, text, failures):
    """No ssh key in the image: the host keys openssh-server's install makes are removed in
    the same layer, nothing key-like is copied in, and the build context (the repository, less
    Dockerfile.dockerignore) holds no private key."""
    runs = dockerfile_runs(text)
    installs = [i for i, r in enumerate(runs) if "install-deps.sh" in r]
    if not installs or "rm -f /etc/ssh/ssh_host_*" not in runs[installs[0]]:
        failures.append("volcano/Dockerfile: the RUN that installs openssh-server (install-deps.sh) "
                        "must also remove /etc/ssh/ssh_host_* (every pod would share the image's "
                        "host keys; the worker entrypoint makes its own)")
    for line in text.splitlines():
        if re.match(r"(COPY|ADD)\b", line) and re.search(r"\.ssh|id_rsa|id_ed25519|authorized_keys|ssh_host_", line):
            failures.append("volcano/Dockerfile copies ssh keys into the image: %s" % line.strip())
    # A key file's first line is the marker alone (a test's string literal is not).
    proc = subprocess.run(["git", "-C", repo, "grep", "-l", "-E", "-e",
                           "^-----BEGIN ([A-Z]+ )?PRIVATE KEY-----[[:space:]]*$"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode == 0:
        failures.append("private keys in the repository (the image's build context): %s"
                        % proc.stdout.split())
    elif proc.returncode != 1:
        print("NOTE: git grep could not search the repository for private keys: %s" % proc.stderr.strip())


def check_install_prefix(args, workdir, failures):
    if not args.build or not os.path.exists(os.path.join(args.build, "commsweep")):
        failures.append("image: --build must name a build directory with commsweep")
        return
    prefix = os.path.join(workdir, "prefix")
    shutil.rmtree(prefix, ignore_errors=True)
    try:
        proc = subprocess.run([os.path.join(args.repo, "scripts", "install-prefix.sh"), args.build, prefix],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            failures.append("install-prefix.sh failed: %s" % proc.stderr.strip())
            return
        for rel in ("bin/commsweep", "scripts/commsweep-k8s"):
            if not os.access(os.path.join(prefix, rel), os.X_OK):
                failures.append("install-prefix.sh: %s is not an executable under the prefix" % rel)
        for rel in ("suites/default.yaml", "suites/ci.yaml"):
            if not os.path.isfile(os.path.join(prefix, rel)):
                failures.append("install-prefix.sh: no %s under the prefix (COMMSWEEP_SUITE names it)" % rel)
        # run-baremetal.sh --shape reads <prefix>/topology/<shape>.conf beside its scripts/.
        if not os.path.isfile(os.path.join(prefix, "topology", "BM.GPU.H100.8.conf")):
            failures.append("install-prefix.sh: no topology/BM.GPU.H100.8.conf under the prefix "
                            "(run-baremetal.sh --shape reads it)")
        for entry in ("entrypoint-master.sh", "entrypoint-worker.sh"):
            if not os.path.exists(os.path.join(args.repo, "scripts", entry)):
                print("NOTE: scripts/%s is not in this checkout yet (the entrypoints lane); the "
                      "manifests name $(COMMSWEEP_HOME)/scripts/%s" % (entry, entry))
            elif not os.access(os.path.join(prefix, "scripts", entry), os.X_OK):
                failures.append("the image would lack an executable scripts/%s" % entry)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def check_shell(repo, failures):
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        print("NOTE: shellcheck not found: the scripts are not linted here")
        return
    proc = subprocess.run([shellcheck, "-x"] + SHELL_SCRIPTS, cwd=repo,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        failures.append("shellcheck: %s" % proc.stdout.strip())


def cmd_image(args, stage, failures):
    check_dockerfile(args.repo, failures)
    check_install_prefix(args, args.workdir, failures)
    check_shell(args.repo, failures)
    print("ok: image layout and scripts checked")
