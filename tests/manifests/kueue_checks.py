"""The MPIJob (Kueue) renderings of volcano/kueue (issue 17), run through check_manifests.py:
  kueue         every volcano/kueue/overlays/<shape> and every shape x mode of
                `commsweep-k8s render --scheduler kueue` against the project's rules (rules.py's
                MPIJobCheck: the same pod rules as the Volcano Job's), each MPIJob's pods equal to
                the Volcano Job's of the same shape and mode, the helper's Kueue options and errors;
  kueue_schema  the MPIJobs against mpi-operator's CRD, the Kueue samples (volcano/kueue/samples)
                against Kueue's CRDs and against the renderings (queue, topology level, flavor,
                covered resources).
"""
import copy
import os

import yaml

import rules
import security
from stage import DEFAULT_SHAPE, MODES, NATURAL_MODE, SHAPES, helper

SKIP_CODE = 77
KUEUE_DIR = os.path.join("volcano", "kueue")
SAMPLES = os.path.join(KUEUE_DIR, "samples")
# volcano/kueue/components/kueue/kueue.env's defaults, as the test knows them.
DEFAULT_QUEUE = "commsweep"
DEFAULT_TOPOLOGY = ("preferred", "oci.oraclecloud.com/rdma.local_block_id")
# The launcher's pod differs from the Volcano master's by this alone (the wrapper's patch).
LAUNCHER_ONLY_ENV = {"name": "COMMSWEEP_HOSTFILE", "value": rules.MPI_HOSTFILE}
# Kueue's annotations, on the workers' template only.
KUEUE_ANNOTATIONS = rules.TOPOLOGY_ANNOTATIONS


def kueue_overlays(repo):
    return sorted(os.listdir(os.path.join(repo, KUEUE_DIR, "overlays")))


def docs_of(text):
    return [d for d in yaml.safe_load_all(text) if d]


def mpijobs(docs):
    return [d for d in docs if d.get("kind") == "MPIJob"]


def one_mpijob(docs, where, failures):
    jobs = mpijobs(docs)
    others = [d["kind"] for d in docs if d.get("kind") not in ("MPIJob", "ConfigMap", "NetworkPolicy")]
    if len(jobs) != 1 or others:
        failures.append("%s: expected one MPIJob, its ConfigMaps and NetworkPolicy, got MPIJobs %d and %s"
                        % (where, len(jobs), others))
        return None
    return jobs[0]


def check_mpijob_rendering(where, text, expect, failures):
    """The rules, the security of the whole rendering; returns the MPIJob (or None)."""
    docs = docs_of(text)
    failures.extend_with(where, rules.check_no_passwords(text))
    failures.extend_with(where, security.check_rendering(docs))
    job = one_mpijob(docs, where, failures)
    if job is not None:
        failures.extend_with(where, rules.check_job(docs, job, expect))
    return job


def without_kueue(template):
    """A worker template less Kueue's annotations (which only the MPIJob carries)."""
    t = copy.deepcopy(template)
    annotations = t.get("metadata", {}).get("annotations", {})
    for key in KUEUE_ANNOTATIONS:
        annotations.pop(key, None)
    if "annotations" in t.get("metadata", {}) and not annotations:
        del t["metadata"]["annotations"]
    return t


def check_same_pods(where, mpijob, volcano_job, failures):
    """One description, two wrappers: the MPIJob's pods are the Volcano Job's."""
    tasks = {t["name"]: t for t in volcano_job["spec"]["tasks"]}
    specs = mpijob["spec"]["mpiReplicaSpecs"]
    if without_kueue(specs["Worker"]["template"]) != tasks["mpiworker"]["template"]:
        failures.append("%s: the MPIJob's Worker template differs from the Volcano Job's mpiworker "
                        "template (beyond Kueue's annotations)" % where)
    launcher = copy.deepcopy(specs["Launcher"]["template"])
    env = launcher["spec"]["containers"][0].get("env", [])
    if LAUNCHER_ONLY_ENV in env:
        env.remove(LAUNCHER_ONLY_ENV)
    if launcher != tasks["mpimaster"]["template"]:
        failures.append("%s: the MPIJob's Launcher template differs from the Volcano Job's mpimaster "
                        "template (beyond %s)" % (where, LAUNCHER_ONLY_ENV["name"]))
    if specs["Worker"].get("replicas") != tasks["mpiworker"].get("replicas"):
        failures.append("%s: %r workers in the MPIJob, %r in the Volcano Job"
                        % (where, specs["Worker"].get("replicas"), tasks["mpiworker"].get("replicas")))


def volcano_job_of(docs):
    return next(d for d in docs if d.get("kind") == "Job" and d["apiVersion"].startswith("batch.volcano.sh/"))


def cmd_kueue(args, stage, failures):
    home = rules.dockerfile_home(args.repo)
    have = kueue_overlays(args.repo)
    if have != sorted(SHAPES):
        failures.append("volcano/kueue/overlays has %s, the shapes are %s" % (have, sorted(SHAPES)))
    for shape in have:
        where = "volcano/kueue/overlays/" + shape
        text = stage.render_text(where)
        job = check_mpijob_rendering(where, text, rules.Expect(
            shape, NATURAL_MODE, workers=2, home=home, queue=DEFAULT_QUEUE, topology=DEFAULT_TOPOLOGY),
            failures)
        if job is not None:
            volcano = volcano_job_of(stage.render("volcano/overlays/" + shape))
            check_same_pods(where, job, volcano, failures)
        print("rendered: %s" % where)
    for shape in SHAPES:
        for mode in MODES:
            argv = ["--shape", shape, "--mode", mode, "--test-id", "k1", "--nodes", "3"]
            where = "render --scheduler kueue " + " ".join(argv)
            text = helper(stage, "render", "--scheduler", "kueue", *argv).stdout
            job = check_mpijob_rendering(where, text, rules.Expect(
                shape, mode, workers=3, job_name="commsweep-k1", namespace="default", test_id="k1",
                queue=DEFAULT_QUEUE, topology=DEFAULT_TOPOLOGY), failures)
            volcano = volcano_job_of(docs_of(helper(stage, "render", *argv).stdout))
            if job is not None:
                check_same_pods(where, job, volcano, failures)
    check_helper_kueue(stage, failures)
    check_helper_cluster_commands(stage, args.workdir, failures)
    check_mpijob_mutations(stage, failures)
    check_security_mutations(stage, failures)
    print("ok: %d Kueue overlays, %d shapes x %d modes rendered as MPIJobs and checked"
          % (len(have), len(SHAPES), len(MODES)))


# (deploy arguments, what the MPIJob must show)
KUEUE_DEPLOYS = [
    (["--shape", "BM.GPU.H200.8", "--mode", "ib", "--nodes", "4", "--namespace", "gpu",
      "--test-id", "q1", "--queue", "team-a", "--topology", "required", "--deadline", "900",
      "--image", "reg.example:5000/commsweep:1.2", "--", "all_reduce", "-b", "8", "-e", "8G"],
     {"shape": "BM.GPU.H200.8", "mode": "ib", "workers": 4, "namespace": "gpu", "test_id": "q1",
      "queue": "team-a", "topology": ("required", DEFAULT_TOPOLOGY[1]), "deadline": 900,
      "image": "reg.example:5000/commsweep:1.2", "args": ["all_reduce", "-b", "8", "-e", "8G"]}),
    (["--test-id", "q2", "--topology-level", "kubernetes.io/hostname", "--node-selector", "none"],
     {"shape": DEFAULT_SHAPE, "mode": NATURAL_MODE, "workers": 2, "namespace": "default",
      "test_id": "q2", "queue": DEFAULT_QUEUE, "topology": ("preferred", "kubernetes.io/hostname"),
      "node_selector": None}),
    (["--test-id", "q3", "--mode", "tcp", "--topology", "required", "--topology-level",
      "example.com/rack"],
     {"shape": DEFAULT_SHAPE, "mode": "tcp", "workers": 2, "namespace": "default", "test_id": "q3",
      "queue": DEFAULT_QUEUE, "topology": ("required", "example.com/rack")}),
    (["--test-id", "q4", "--topology", "none", "--nodes", "100"],
     {"shape": DEFAULT_SHAPE, "mode": NATURAL_MODE, "workers": 100, "namespace": "default",
      "test_id": "q4", "queue": DEFAULT_QUEUE, "topology": "none"}),
]

KUEUE_BAD_INPUT = [
    (["deploy", "--scheduler", "slurm"], "--scheduler 'slurm': expected volcano or kueue"),
    (["deploy", "--scheduler", "kueue", "--topology", "strict"],
     "--topology 'strict': expected preferred, required or none"),
    (["deploy", "--scheduler", "kueue", "--topology-level", "rack id"],
     "--topology-level 'rack id': not a node label key"),
    (["deploy", "--topology", "required"], "--topology and --topology-level are Kueue's"),
    (["deploy", "--scheduler", "kueue", "--topology", "none", "--topology-level", "kubernetes.io/hostname"],
     "--topology-level with --topology none"),
    # mpi-operator's workers are <job>-worker-<i>: 3 more characters fit than Volcano's (40).
    (["deploy", "--scheduler", "kueue", "--nodes", "100", "--test-id", "c" * 45], "at most 43 fit"),
    (["status", "--scheduler", "kueue"], "status needs --test-id"),
]


def check_extra_mpijob(where, job, want, failures):
    specs = job["spec"]["mpiReplicaSpecs"]
    if "deadline" in want:
        for kind, spec in specs.items():
            got = spec["template"]["spec"].get("activeDeadlineSeconds")
            if got != want["deadline"]:
                failures.append("%s: %s activeDeadlineSeconds %r" % (where, kind, got))
        if job["spec"]["runPolicy"].get("activeDeadlineSeconds") != want["deadline"]:
            failures.append("%s: runPolicy.activeDeadlineSeconds %r"
                            % (where, job["spec"]["runPolicy"].get("activeDeadlineSeconds")))
    if "image" in want:
        for kind, spec in specs.items():
            if spec["template"]["spec"]["containers"][0]["image"] != want["image"]:
                failures.append("%s: %s image %r" % (where, kind, spec["template"]["spec"]["containers"][0]["image"]))
    if "node_selector" in want and specs["Worker"]["template"]["spec"].get("nodeSelector") != want["node_selector"]:
        failures.append("%s: nodeSelector %r" % (where, specs["Worker"]["template"]["spec"].get("nodeSelector")))
    got_args = specs["Launcher"]["template"]["spec"]["containers"][0].get("args")
    if got_args != want.get("args", []):
        failures.append("%s: launcher args %r, expected %r" % (where, got_args, want.get("args", [])))


def check_helper_kueue(stage, failures):
    for argv, want in KUEUE_DEPLOYS:
        where = "deploy --dry-run --scheduler kueue " + " ".join(argv)
        proc = helper(stage, "deploy", "--dry-run", "--scheduler", "kueue", *argv)
        if "dry run: would run 'kubectl apply -f -'" not in proc.stderr:
            failures.append("%s: stderr does not say what it would run: %s" % (where, proc.stderr))
        expect = rules.Expect(want["shape"], want["mode"], workers=want["workers"],
                              job_name="commsweep-" + want["test_id"], namespace=want["namespace"],
                              test_id=want["test_id"], default_node_selector="node_selector" not in want,
                              queue=want["queue"], topology=want["topology"])
        job = check_mpijob_rendering(where, proc.stdout, expect, failures)
        for d in docs_of(proc.stdout):
            meta = d["metadata"]
            if (meta.get("namespace") != want["namespace"]
                    or meta.get("labels", {}).get(rules.TEST_ID_LABEL) != want["test_id"]):
                failures.append("%s: %s %s is not in namespace %s with test id %s"
                                % (where, d["kind"], meta["name"], want["namespace"], want["test_id"]))
        if job is not None:
            check_extra_mpijob(where, job, want, failures)
    for argv, message in KUEUE_BAD_INPUT:
        proc = helper(stage, *(argv + (["--dry-run"] if argv[0] == "deploy" else [])), ok_codes=(2,))
        if message not in proc.stderr:
            failures.append("commsweep-k8s %s: stderr %r lacks %r" % (" ".join(argv), proc.stderr.strip(), message))
    proc = helper(stage, "cleanup", "--scheduler", "kueue", "--test-id", "q1", "--namespace", "gpu", "--dry-run")
    want = ("would run kubectl -n gpu delete mpijobs.kubeflow.org,networkpolicies,configmaps "
            "-l app.kubernetes.io/instance=q1")
    if want not in proc.stderr:
        failures.append("cleanup --scheduler kueue --dry-run printed %r, expected %r" % (proc.stderr.strip(), want))
    text = helper(stage, "--help").stdout
    for word in ("--scheduler", "kueue", "--topology", "--topology-level", "LocalQueue"):
        if word not in text:
            failures.append("--help does not mention %s" % word)


def worker_of(job):
    return job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]


def launcher_env(job):
    return job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["env"]


# Each a way the wrapper could go wrong: rules.MPIJobCheck must name every one.
MPIJOB_MUTATIONS = {
    "slotsPerWorker not the shape's GPUs": lambda j: j["spec"].update(slotsPerWorker=4),
    "launcher created at startup": lambda j: j["spec"].update(launcherCreationPolicy="AtStartup"),
    "not suspended for Kueue": lambda j: j["spec"]["runPolicy"].update(suspend=False),
    "retried on failure": lambda j: j["spec"]["runPolicy"].update(backoffLimit=3),
    "workers kept running": lambda j: j["spec"]["runPolicy"].update(cleanPodPolicy="None"),
    "no job deadline": lambda j: j["spec"]["runPolicy"].pop("activeDeadlineSeconds"),
    "no queue label": lambda j: j["metadata"]["labels"].pop(rules.QUEUE_LABEL),
    "no topology request": lambda j: worker_of(j)["metadata"]["annotations"].pop(KUEUE_ANNOTATIONS[1]),
    "required and preferred": lambda j: worker_of(j)["metadata"]["annotations"].update(
        {KUEUE_ANNOTATIONS[0]: "kubernetes.io/hostname"}),
    "launcher reads Volcano's hostfile": lambda j: launcher_env(j).remove(LAUNCHER_ONLY_ENV),
    "ssh keys mounted elsewhere": lambda j: j["spec"].update(sshAuthMountPath="/home/mpiuser/.ssh"),
    "worker asks 4 GPUs": lambda j: worker_of(j)["spec"]["containers"][0]["resources"]["limits"].update(
        {"nvidia.com/gpu": 4}),
    "Intel MPI": lambda j: j["spec"].update(mpiImplementation="Intel"),
}


def policy_of(docs):
    return next(d for d in docs if d.get("kind") == "NetworkPolicy")


# Ways the MPIJob's NetworkPolicy could open the workers' sshd: security.check_rendering must
# name every one.
POLICY_MUTATIONS = {
    "no NetworkPolicy": lambda d: d.remove(policy_of(d)),
    "admits every pod": lambda d: policy_of(d)["spec"]["ingress"][0]["from"][0]["podSelector"].update(matchLabels={}),
    "admits a namespace": lambda d: policy_of(d)["spec"]["ingress"][0]["from"].append({"namespaceSelector": {}}),
    "admits an address block": lambda d: policy_of(d)["spec"]["ingress"].append(
        {"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}),
    "selects another run's pods": lambda d: policy_of(d)["spec"]["podSelector"]["matchLabels"].update(
        {rules.TEST_ID_LABEL: "other"}),
    "no ingress rule": lambda d: policy_of(d)["spec"].update(policyTypes=["Egress"]),
}


def check_mpijob_mutations(stage, failures):
    docs = stage.render("volcano/kueue/overlays/" + DEFAULT_SHAPE)
    job = mpijobs(docs)[0]
    expect = rules.Expect(DEFAULT_SHAPE, NATURAL_MODE)
    if rules.check_job(docs, job, expect):
        failures.append("MPIJob self-test: the unchanged MPIJob fails: %s" % rules.check_job(docs, job, expect))
        return
    for name, mutate in MPIJOB_MUTATIONS.items():
        bad = copy.deepcopy(job)
        mutate(bad)
        found = rules.check_job(docs, bad, expect)
        if not found:
            failures.append("MPIJob self-test: '%s' passed the rules" % name)
        else:
            print("caught: %-40s %s" % (name, found[0]))
    if security.check_rendering(docs):
        failures.append("NetworkPolicy self-test: the unchanged rendering fails: %s" % security.check_rendering(docs))
    for name, mutate in POLICY_MUTATIONS.items():
        bad_docs = copy.deepcopy(docs)
        mutate(bad_docs)
        found = security.check_rendering(bad_docs)
        if not found:
            failures.append("NetworkPolicy self-test: '%s' passed the rules" % name)
        else:
            print("caught: %-40s %s" % (name, found[0]))


# A kubectl that answers the helper's cluster calls as a cluster with the run would (and records
# them), handing `kubectl kustomize` to the real one.
FAKE_KUBECTL = r"""#!/usr/bin/env bash
set -euo pipefail
echo "$*" >>"$FAKE_KUBECTL_LOG"
[ "${1:-}" != kustomize ] || exec "$REAL_KUBECTL" "$@"
args=" $* "
case "$args" in
  *" logs "*) echo '{"schema": "commsweep.results/1", "summary": {}}' ;;
  *"get pods "*"-o jsonpath="*) echo -n "commsweep-q1-launcher-x7k2p" ;;
  *"slotsPerWorker"*|*"COMMSWEEP_GPUS_PER_NODE"*) echo -n 8 ;;
  *"get workloads.kueue.x-k8s.io"*) printf 'NAME QUEUE\nmpijob-commsweep-q1-3f2a1 commsweep\nmpijob-commsweep-q10-1b2c3 commsweep\n' ;;
esac
"""

# (helper arguments, a kubectl call it must make, a line its output must hold or None)
CLUSTER_CALLS = [
    (["logs", "--test-id", "q1"], "logs -f commsweep-q1-mpimaster-0", None),
    (["logs", "--test-id", "q1", "--rank", "9"], "logs -f commsweep-q1-mpiworker-1", None),
    (["logs", "--scheduler", "kueue", "--test-id", "q1"], "logs -f commsweep-q1-launcher-x7k2p", None),
    (["logs", "--scheduler", "kueue", "--test-id", "q1"],
     "get pods -l app.kubernetes.io/instance=q1,app.kubernetes.io/component=mpimaster", None),
    (["logs", "--scheduler", "kueue", "--test-id", "q1", "--rank", "9"],
     "logs -f commsweep-q1-worker-1", None),
    (["logs", "--scheduler", "kueue", "--test-id", "q1", "--rank", "9"],
     "get mpijobs.kubeflow.org/commsweep-q1 -o jsonpath={.spec.slotsPerWorker}", None),
    (["status", "--scheduler", "kueue", "--test-id", "q1", "-n", "gpu"],
     "-n gpu get mpijobs.kubeflow.org,pods -o wide -l app.kubernetes.io/instance=q1",
     "mpijob-commsweep-q1-3f2a1 commsweep"),
    (["results", "--scheduler", "kueue", "--test-id", "q1"], "logs commsweep-q1-launcher-x7k2p", None),
]


def check_helper_cluster_commands(stage, workdir, failures):
    import shutil
    import subprocess
    fake_dir = os.path.join(workdir, "fake-kubectl")
    os.makedirs(fake_dir, exist_ok=True)
    fake = os.path.join(fake_dir, "kubectl")
    with open(fake, "w") as f:
        f.write(FAKE_KUBECTL)
    os.chmod(fake, 0o755)
    log = os.path.join(workdir, "kubectl-calls.log")
    env = dict(os.environ, PATH=fake_dir + os.pathsep + os.environ["PATH"], FAKE_KUBECTL_LOG=log,
               REAL_KUBECTL=stage.kubectl if os.path.isabs(stage.kubectl) else shutil.which(stage.kubectl))
    for argv, call, line in CLUSTER_CALLS:
        open(log, "w").close()
        proc = subprocess.run([stage.path("scripts", "commsweep-k8s")] + argv, capture_output=True, text=True,
                              timeout=60, env=env, cwd=workdir)
        with open(log) as f:
            calls = f.read()
        where = "commsweep-k8s " + " ".join(argv)
        if proc.returncode != 0:
            failures.append("%s: exit %d: %s" % (where, proc.returncode, proc.stderr.strip()))
        elif call not in calls:
            failures.append("%s: no kubectl %s among its calls: %s" % (where, call, calls.strip().splitlines()))
        elif line is not None and (line not in proc.stdout or "q10" in proc.stdout):
            failures.append("%s: output lacks %r (or names another run): %r" % (where, line, proc.stdout))
    results = os.path.join(workdir, "results-q1", "results-1.json")
    if not os.path.isfile(results):
        failures.append("results --scheduler kueue wrote no %s" % results)
    print("ok: %d cluster commands of the helper checked against a recording kubectl" % len(CLUSTER_CALLS))


# The pod-level widenings of check_manifests' SECURITY_MUTATIONS apply to the MPIJob's pods too
# (its Volcano-only ones, the plugins', do not).
def check_security_mutations(stage, failures):
    import check_manifests
    text = helper(stage, "render", "--scheduler", "kueue", "--test-id", "sec").stdout
    docs = docs_of(text)
    job = mpijobs(docs)[0]
    expect = rules.Expect(DEFAULT_SHAPE, NATURAL_MODE)
    caught = 0
    for name, mutate in check_manifests.SECURITY_MUTATIONS.items():
        if name in check_manifests.VOLCANO_ONLY_MUTATIONS:
            continue
        bad_job, bad_docs = copy.deepcopy(job), copy.deepcopy(docs)
        mutate(bad_job, bad_docs)
        found = [p for p in rules.check_job(bad_docs, bad_job, expect) + security.check_rendering(bad_docs)
                 if p.startswith("security:")]
        if not found:
            failures.append("security self-test on the MPIJob: '%s' passed the rules" % name)
        caught += bool(found)
    print("ok: %d widenings of the MPIJob's pods caught" % caught)


# --- the schemas and the samples ---------------------------------------------------------------

def cmd_kueue_schema(args, stage, failures):
    ref = os.path.join(args.shared, "reference")
    dirs = {name: os.path.join(ref, name) for name in ("mpi-operator-crd", "kueue-crd")}
    missing = [d for d in dirs.values() if not os.path.isdir(d)]
    if missing:
        print("SKIP: %s not found (../shared beside the repository): the MPIJob and Kueue CRD "
              "schemas are not checked; the project's rules still are (manifests.kueue)" % missing)
        return SKIP_CODE
    import crd_schema
    validators = {}
    for name, path in dirs.items():
        validators.update(crd_schema.load_validators(path, crd_schema.CRD_SETS[name]))
    count = 0
    renderings = {"volcano/kueue/overlays/" + s: stage.render_text("volcano/kueue/overlays/" + s)
                  for s in kueue_overlays(args.repo)}
    for mode in MODES:
        renderings["render --scheduler kueue --mode " + mode] = helper(
            stage, "render", "--scheduler", "kueue", "--mode", mode, "--nodes", "3", "--test-id", "s1",
            "--namespace", "ns1", "--topology", "required", "--", "all_reduce", "-e", "1G").stdout
    renderings["volcano/kueue/nightly/job"] = stage.render_text("volcano/kueue/nightly/job")
    renderings[SAMPLES] = stage.render_text(SAMPLES)
    for where, text in renderings.items():
        for doc in docs_of(text):
            failures.extend_with(where, crd_schema.validate(validators, doc))
            count += crd_schema.covers(validators, doc)
    samples = docs_of(renderings[SAMPLES])
    kinds = sorted(d["kind"] for d in samples)
    if kinds != ["ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology"]:
        failures.append("%s: expected a ClusterQueue, LocalQueue, ResourceFlavor and Topology, got %s"
                        % (SAMPLES, kinds))
    else:
        check_samples(stage, samples, failures)
    check_schema_fails(stage, validators, samples, failures)
    print("ok: %d MPIJob and Kueue objects validated against %s" % (count, sorted(dirs.values())))


def check_schema_fails(stage, validators, samples, failures):
    """The schemas must be able to fail: misplaced fields are rejected."""
    import crd_schema
    job = mpijobs(stage.render("volcano/kueue/overlays/" + DEFAULT_SHAPE))[0]
    bad = copy.deepcopy(job)
    bad["spec"]["activeDeadlineSeconds"] = 600     # runPolicy's field, one level up
    if not crd_schema.validate(validators, bad):
        failures.append("schema: an MPIJob with spec.activeDeadlineSeconds passed")
    bad = copy.deepcopy(job)
    bad["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] = "2"
    if not crd_schema.validate(validators, bad):
        failures.append("schema: an MPIJob with replicas \"2\" (a string) passed")
    flavor = copy.deepcopy(next(d for d in samples if d["kind"] == "ResourceFlavor"))
    flavor["spec"]["topology"] = flavor["spec"].pop("topologyName")
    if not crd_schema.validate(validators, flavor):
        failures.append("schema: a ResourceFlavor with spec.topology (not topologyName) passed")


def by_kind(docs):
    return {d["kind"]: d for d in docs}


def requested_resources(stage):
    """Every resource a commsweep pod asks, in every mode (the default shape's renderings)."""
    asked = set()
    for mode in MODES:
        text = helper(stage, "render", "--scheduler", "kueue", "--mode", mode, "--test-id", "r1").stdout
        for spec in mpijobs(docs_of(text))[0]["spec"]["mpiReplicaSpecs"].values():
            for c in spec["template"]["spec"]["containers"]:
                for part in ("limits", "requests"):
                    asked.update(c.get("resources", {}).get(part, {}))
    return asked


def check_samples(stage, samples, failures):
    """The samples fit the renderings: a user who applies both gets an admissible job."""
    k = by_kind(samples)
    topology, flavor, cq, lq = k["Topology"], k["ResourceFlavor"], k["ClusterQueue"], k["LocalQueue"]
    fail = lambda message: failures.append("%s: %s" % (SAMPLES, message))
    if flavor["spec"].get("topologyName") != topology["metadata"]["name"]:
        fail("ResourceFlavor %s names Topology %r, the sample is %s"
             % (flavor["metadata"]["name"], flavor["spec"].get("topologyName"), topology["metadata"]["name"]))
    levels = [level["nodeLabel"] for level in topology["spec"]["levels"]]
    if DEFAULT_TOPOLOGY[1] not in levels:
        fail("the MPIJob's topology level %s is not a level of Topology %s (%s)"
             % (DEFAULT_TOPOLOGY[1], topology["metadata"]["name"], levels))
    if levels[-1] != "kubernetes.io/hostname":
        fail("the Topology's last level is %r: kubernetes.io/hostname lets Kueue place each pod" % levels[-1])
    if flavor["spec"].get("nodeLabels", {}).get("node.kubernetes.io/instance-type") != DEFAULT_SHAPE:
        fail("ResourceFlavor %s does not select %s nodes (node.kubernetes.io/instance-type)"
             % (flavor["metadata"]["name"], DEFAULT_SHAPE))
    if lq["metadata"]["name"] != DEFAULT_QUEUE or lq["spec"].get("clusterQueue") != cq["metadata"]["name"]:
        fail("LocalQueue %s -> %r: expected %s -> %s" % (lq["metadata"]["name"], lq["spec"].get("clusterQueue"),
                                                       DEFAULT_QUEUE, cq["metadata"]["name"]))
    if "namespace" in lq["metadata"]:
        fail("the LocalQueue fixes namespace %s: it belongs in the job's" % lq["metadata"]["namespace"])
    covered = set()
    quotas = {}
    for group in cq["spec"]["resourceGroups"]:
        covered.update(group["coveredResources"])
        for f in group["flavors"]:
            if f["name"] != flavor["metadata"]["name"]:
                fail("ClusterQueue flavor %s is not the sample's ResourceFlavor" % f["name"])
            quotas.update({r["name"]: r["nominalQuota"] for r in f["resources"]})
    asked = requested_resources(stage)
    if asked - covered:
        fail("the pods ask for %s, which ClusterQueue %s does not cover (the job would never be "
             "admitted)" % (sorted(asked - covered), cq["metadata"]["name"]))
    gpus = SHAPES[DEFAULT_SHAPE]["gpus"]
    gpu_quota = int(str(quotas.get("nvidia.com/gpu", 0)))
    if gpu_quota < 2 * gpus or gpu_quota % gpus:
        fail("nvidia.com/gpu quota %s: expected whole nodes of %d GPUs, at least the default 2 workers"
             % (gpu_quota, gpus))
    vf_quota = int(str(quotas.get("nvidia.com/sriov_rdma_vf", 0)))
    if vf_quota != gpu_quota // gpus * SHAPES[DEFAULT_SHAPE]["rdma_ports"]:
        fail("nvidia.com/sriov_rdma_vf quota %s is not %d per node" % (vf_quota, SHAPES[DEFAULT_SHAPE]["rdma_ports"]))
