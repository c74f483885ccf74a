#!/usr/bin/env python3
"""The manifest tests (ctest label `manifests`): real `kubectl kustomize` renderings of volcano/
checked against the project's rules (rules.py) and the CRD schemas (crd_schema.py): Volcano's
Job, and the MPIJob for Kueue (volcano/kueue, kueue_checks.py).

Usage: check_manifests.py COMMAND --repo DIR --workdir DIR [--kubectl PATH] [--shared DIR]
                          [--build DIR]
Commands: overlays, modes, nightly, schema, generated, helper, image, security, kueue,
kueue_schema, health.
Exit codes: 0 passed, 1 a rule failed (each failure printed), 77 skipped (the reason printed
as "SKIP: ...").
"""
import argparse
import copy
import os
import shutil
import subprocess
import sys

import yaml

import rules
import security
from stage import (DEFAULT_SHAPE, MODES, NATURAL_MODE, SHAPES, Stage, helper, one_job, overlays,
                   real_topology_gpus, volcano_jobs)

SKIP_CODE = 77


class Failures(list):
    def extend_with(self, where, problems):
        self.extend("%s: %s" % (where, p) for p in problems)


def cmd_overlays(args, stage, failures):
    """Every overlay renders one complete Job for its shape in the natural mode."""
    home = rules.dockerfile_home(args.repo)
    have = overlays(args.repo)
    if sorted(have) != sorted(SHAPES):
        failures.append("overlays: volcano/overlays has %s, the shapes are %s" % (have, sorted(SHAPES)))
    for shape in have:
        where = "volcano/overlays/" + shape
        text = stage.render_text("volcano/overlays/" + shape)
        docs = [d for d in yaml.safe_load_all(text) if d]
        failures.extend_with(where, rules.check_no_passwords(text))
        failures.extend_with(where, security.check_rendering(docs))
        job = one_job(docs, where, failures)
        if job is None:
            continue
        expect = rules.Expect(shape, NATURAL_MODE, workers=2, home=home)
        failures.extend_with(where, rules.check_job(docs, job, expect))
        topo_gpus = real_topology_gpus(args.repo, shape) if shape in SHAPES else None
        if topo_gpus is not None and topo_gpus != SHAPES[shape]["gpus"]:
            failures.append("%s: topology/%s.xml has %d <gpu> elements, the shape %d GPUs"
                            % (where, shape, topo_gpus, SHAPES[shape]["gpus"]))
        print("rendered: %s (%d objects)" % (where, len(docs)))


def cmd_modes(args, stage, failures):
    """Every shape in every fabric mode (commsweep-k8s render, i.e. kubectl kustomize)."""
    for shape in SHAPES:
        for mode in MODES:
            where = "render --shape %s --mode %s" % (shape, mode)
            proc = helper(stage, "render", "--shape", shape, "--mode", mode, "--test-id", "m1")
            docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
            failures.extend_with(where, rules.check_no_passwords(proc.stdout))
            failures.extend_with(where, security.check_rendering(docs))
            job = one_job(docs, where, failures)
            if job is not None:
                failures.extend_with(where, rules.check_job(
                    docs, job, rules.Expect(shape, mode, workers=2, job_name="commsweep-m1",
                                            namespace="default", test_id="m1")))
    print("ok: %d shapes x %d modes rendered and checked" % (len(SHAPES), len(MODES)))


# Each a way a future change could widen a pod's privileges: the rules must catch every one.
SECURITY_MUTATIONS = {
    "worker privileged": lambda j, d: worker(j).setdefault("securityContext", {}).update(privileged=True),
    "worker hostNetwork": lambda j, d: pod_of(j, 1).update(hostNetwork=True),
    "master hostPID": lambda j, d: pod_of(j, 0).update(hostPID=True),
    "worker adds SYS_ADMIN": lambda j, d: worker(j)["securityContext"]["capabilities"]["add"].append("SYS_ADMIN"),
    "worker adds SYS_RESOURCE": lambda j, d: worker(j)["securityContext"]["capabilities"]["add"].append("SYS_RESOURCE"),
    "worker keeps the default capabilities": lambda j, d: worker(j)["securityContext"]["capabilities"].pop("drop"),
    "master adds IPC_LOCK": lambda j, d: pod_of(j, 0)["containers"][0]["securityContext"]["capabilities"]
                                          .update(add=["IPC_LOCK"]),
    "master may escalate": lambda j, d: pod_of(j, 0)["containers"][0]["securityContext"]
                                          .update(allowPrivilegeEscalation=True),
    "worker token mounted": lambda j, d: pod_of(j, 1).pop("automountServiceAccountToken"),
    "worker hostPath": lambda j, d: pod_of(j, 1)["volumes"].append({"name": "h", "hostPath": {"path": "/"}}),
    "svc NetworkPolicy off": lambda j, d: j["spec"]["plugins"].update(svc=["--disable-network-policy=true"]),
    "own NetworkPolicy": lambda j, d: d.append({"kind": "NetworkPolicy", "metadata": {"name": "open"}}),
    "own Secret": lambda j, d: d.append({"kind": "Secret", "metadata": {"name": "keys"}}),
    "worker seccompProfile removed": lambda j, d: pod_of(j, 1).setdefault("securityContext", {})
                                                  .pop("seccompProfile", None),
    "master pod securityContext removed": lambda j, d: pod_of(j, 0).pop("securityContext", None),
    "master seccomp Unconfined": lambda j, d: pod_of(j, 0).setdefault("securityContext", {}).update(
        seccompProfile={"type": "Unconfined"}),
    "worker seccomp Localhost": lambda j, d: pod_of(j, 1).setdefault("securityContext", {}).update(
        seccompProfile={"type": "Localhost", "localhostProfile": "profiles/commsweep.json"}),
    "worker container overrides Unconfined": lambda j, d: worker(j)["securityContext"].update(
        seccompProfile={"type": "Unconfined"}),
}


# Mutations of the Volcano Job's own fields (its plugins), which an MPIJob does not have.
VOLCANO_ONLY_MUTATIONS = {"svc NetworkPolicy off"}


def pod_of(job, task):
    """Task 0 (mpimaster, the MPIJob's Launcher) or 1 (mpiworker, its Workers): the pod spec."""
    if job.get("kind") == "MPIJob":
        return job["spec"]["mpiReplicaSpecs"][("Launcher", "Worker")[task]]["template"]["spec"]
    return job["spec"]["tasks"][task]["template"]["spec"]


def worker(job):
    return pod_of(job, 1)["containers"][0]


ROW = "%-10s %-9s %-38s %-11s %-10s %-12s %-7s %s"


def security_row(mode, pod_spec, task):
    c = pod_spec["containers"][0]
    sc = c.get("securityContext", {})
    caps = security.effective_capabilities(c)
    seccomp = (security.seccomp_profile(pod_spec, c) or {}).get("type", "unset")
    return ROW % (
        mode, task, "(runtime default)" if caps is None else ",".join(caps) or "none",
        bool(sc.get("privileged")), bool(pod_spec.get("hostNetwork")),
        sc.get("allowPrivilegeEscalation"), pod_spec.get("automountServiceAccountToken"), seccomp)


def cmd_security(args, stage, failures):
    """Each mode's rendering of the default shape: each pod's privileges against
    security.POLICY (printed as a table), then each SECURITY_MUTATIONS case must be caught.
    Every other shape gets the same security checks from `modes` (rules.check_job and
    security.check_rendering on every shape x mode): rendered once there, not again here."""
    print(ROW % ("mode", "pod", "capabilities (drop ALL, add)", "privileged", "hostNet", "escalation",
                 "token", "seccomp"))
    first = None
    shape = DEFAULT_SHAPE
    for mode in MODES:
        where = "render --shape %s --mode %s" % (shape, mode)
        text = helper(stage, "render", "--shape", shape, "--mode", mode, "--test-id", "sec").stdout
        docs = [d for d in yaml.safe_load_all(text) if d]
        failures.extend_with(where, security.check_rendering(docs))
        job = one_job(docs, where, failures)
        if job is None:
            continue
        failures.extend_with(where, security.check_job_plugins(job["spec"]))
        for i, task in enumerate(("mpimaster", "mpiworker")):
            failures.extend_with(where, security.check_pod_security(task, pod_of(job, i)))
            print(security_row(mode, pod_of(job, i), task))
        first = first or (docs, job, mode)
    if first is None:
        return
    docs, job, mode = first
    expect = rules.Expect(shape, mode)
    for name, mutate in SECURITY_MUTATIONS.items():
        bad_job, bad_docs = copy.deepcopy(job), copy.deepcopy(docs)
        mutate(bad_job, bad_docs)
        caught = [p for p in rules.check_job(bad_docs, bad_job, expect) + security.check_rendering(bad_docs)
                  if p.startswith("security:")]
        if not caught:
            failures.append("security self-test: '%s' passed the rules" % name)
        else:
            print("caught: %-40s %s" % (name, caught[0]))
    print("ok: %s in %d modes checked for least privilege (every shape: `modes`); %d widenings caught"
          % (shape, len(MODES), len(SECURITY_MUTATIONS)))


def cronjob_as_job(cron, name):
    template = cron["spec"]["jobTemplate"]
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "labels": template.get("metadata", {}).get("labels", {})},
            "spec": template["spec"]}


def check_cron_fields(where, spec, failures):
    if spec.get("concurrencyPolicy") != "Forbid":
        failures.append("%s: concurrencyPolicy is %r, expected Forbid" % (where, spec.get("concurrencyPolicy")))
    for field in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if not isinstance(spec.get(field), int):
            failures.append("%s: %s not set" % (where, field))


# Each night's test id: the name of the night's job, from the label its launcher puts on the
# master's pod (Volcano's CronJob names each night's Job <cronjob>-<time>).
NIGHT_NAME_LABEL = {"Job": "volcano.sh/job-name", "MPIJob": "training.kubeflow.org/job-name"}


# The nightly's baseline: <folder>/<shape>-<mode>.json, the folder the ConfigMap
# commsweep-baselines mounted read-only and optional (docs/quickstart.md: made with kubectl create
# configmap; absent on the first nights, when the master keeps the run unjudged).
BASELINE_FILE = "/$(COMMSWEEP_SHAPE)-$(COMMSWEEP_FABRIC_MODE).json"
BASELINE_CONFIGMAP = "commsweep-baselines"


def check_baseline_source(where, master, container, baseline, failures):
    if not baseline.endswith(BASELINE_FILE):
        failures.append("%s: COMMSWEEP_BASELINE %r is not <folder>/<shape>-<mode>.json" % (where, baseline))
        return
    folder = baseline[: -len(BASELINE_FILE)]
    mount = next((m for m in container.get("volumeMounts", []) if m.get("mountPath") == folder), None)
    volume = next((v for v in master.get("volumes", []) if mount and v["name"] == mount["name"]), {})
    config_map = volume.get("configMap", {})
    if config_map.get("name") != BASELINE_CONFIGMAP or config_map.get("optional") is not True \
            or not mount.get("readOnly"):
        failures.append("%s: the baseline folder %s is not the ConfigMap %s mounted read-only and optional "
                        "(mount %r, volume %r)" % (where, folder, BASELINE_CONFIGMAP, mount, volume))


# Each mistake of the baseline's source, planted in a copy of the nightly master, must be caught.
BASELINE_MISTAKES = {
    "not optional": lambda v, m: v["configMap"].pop("optional"),
    "another ConfigMap": lambda v, m: v["configMap"].update(name="commsweep-baseline"),
    "writable": lambda v, m: m.pop("readOnly"),
    "a PVC instead": lambda v, m: (v.pop("configMap"), v.update(persistentVolumeClaim={"claimName": "x"})),
}


def check_baseline_mistakes_caught(where, job, failures):
    for mistake, plant in BASELINE_MISTAKES.items():
        master = copy.deepcopy(pod_of(job, 0))
        c = master["containers"][0]
        baseline = rules.env_of(c)["COMMSWEEP_BASELINE"]["value"]
        folder = baseline[: -len(BASELINE_FILE)]
        mount = next(m for m in c["volumeMounts"] if m["mountPath"] == folder)
        plant(next(v for v in master["volumes"] if v["name"] == mount["name"]), mount)
        caught = []
        check_baseline_source(where, master, c, baseline, caught)
        if not caught:
            failures.append("%s: a baseline source %s was not caught" % (where, mistake))


def check_nightly_master(where, docs, job, failures):
    master = pod_of(job, 0)
    c = master["containers"][0]
    env = rules.env_of(c)
    for name in ("COMMSWEEP_BASELINE", "COMMSWEEP_HISTORY_DIR", "COMMSWEEP_RESULTS_DIR"):
        if name not in env:
            failures.append("%s: the nightly master has no %s" % (where, name))
    baseline = env.get("COMMSWEEP_BASELINE", {}).get("value", "")
    check_baseline_source(where, master, c, baseline, failures)
    results_dir = env.get("COMMSWEEP_RESULTS_DIR", {}).get("value")
    history = env.get("COMMSWEEP_HISTORY_DIR", {}).get("value")
    if history != "%s/history" % results_dir:
        failures.append("%s: COMMSWEEP_HISTORY_DIR %r is not <results>/history" % (where, history))
    mount = next((m for m in c.get("volumeMounts", []) if m.get("mountPath") == results_dir), None)
    volume = next((v for v in master.get("volumes", []) if mount and v["name"] == mount["name"]), {})
    claim = volume.get("persistentVolumeClaim", {}).get("claimName")
    pvcs = [d["metadata"]["name"] for d in docs if d.get("kind") == "PersistentVolumeClaim"]
    if claim is None or claim not in pvcs:
        failures.append("%s: results dir %s is not on a PVC of the rendering (claim %r, PVCs %s)"
                        % (where, results_dir, claim, pvcs))
    test_id = env.get("COMMSWEEP_TEST_ID", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    if test_id != "metadata.labels['%s']" % NIGHT_NAME_LABEL[job["kind"]]:
        failures.append("%s: each night needs its own test id (the Job's name), got %r" % (where, test_id))


def cmd_nightly(args, stage, failures):
    home = rules.dockerfile_home(args.repo)
    expect = rules.Expect(DEFAULT_SHAPE, NATURAL_MODE, home=home)
    # Volcano 1.13+: the Volcano CronJob.
    where = "volcano/nightly/volcano"
    docs = stage.render(where)
    failures.extend_with(where, security.check_rendering(docs))
    crons = [d for d in docs if d.get("kind") == "CronJob" and d["apiVersion"].startswith("batch.volcano.sh/")]
    if len(crons) != 1 or volcano_jobs(docs):
        failures.append("%s: expected one Volcano CronJob and no Job, got %s" % (where, [d["kind"] for d in docs]))
    for cron in crons:
        check_cron_fields(where, cron["spec"], failures)
        # Volcano names each night's Job <cronjob>-<scheduled time>; allow 11 characters for it.
        job = cronjob_as_job(cron, cron["metadata"]["name"] + "-" + "1" * 11)
        failures.extend_with(where, rules.check_job(docs, job, expect))
        check_nightly_master(where, docs, job, failures)
        check_baseline_mistakes_caught(where, job, failures)
    # Older Volcano: a plain CronJob whose runner creates the Job from its ConfigMap.
    where = "volcano/nightly/kubernetes"
    text = stage.render_text(where)
    docs = [d for d in yaml.safe_load_all(text) if d]
    failures.extend_with(where, rules.check_no_passwords(text))
    failures.extend_with(where, security.check_rendering(docs))
    check_kubernetes_cron(where, docs, expect, failures)
    # Kueue: a plain CronJob whose runner creates the MPIJob.
    where = "volcano/kueue/nightly"
    text = stage.render_text(where)
    docs = [d for d in yaml.safe_load_all(text) if d]
    failures.extend_with(where, rules.check_no_passwords(text))
    failures.extend_with(where, security.check_rendering(docs))
    kueue_expect = rules.Expect(DEFAULT_SHAPE, NATURAL_MODE, home=home, queue="commsweep")
    check_kubernetes_cron(where, docs, kueue_expect, failures, kind="MPIJob")
    print("ok: nightly renderings checked")


# The job each plain-Kubernetes nightly's runner creates, and what its Role must allow for it.
RUNNER_JOBS = {"Job": ("batch.volcano.sh", "jobs"), "MPIJob": ("kubeflow.org", "mpijobs")}


def check_kubernetes_cron(where, docs, expect, failures, kind="Job"):
    """A batch/v1 CronJob whose runner creates the night's `kind` (a Volcano Job, or an MPIJob:
    volcano/kueue/nightly) from job.yaml in its ConfigMap."""
    crons = [d for d in docs if d.get("kind") == "CronJob" and d["apiVersion"] == "batch/v1"]
    if len(crons) != 1 or volcano_jobs(docs) or any(d.get("kind") == "MPIJob" for d in docs):
        failures.append("%s: expected one batch/v1 CronJob and no Volcano Job or MPIJob" % where)
        return
    cron = crons[0]
    check_cron_fields(where, cron["spec"], failures)
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    check_rbac(where, docs, pod.get("serviceAccountName"), failures, RUNNER_JOBS[kind])
    failures.extend_with(where, security.check_runner(pod))
    cms = rules.configmaps(docs)
    runner_cm = next((v["configMap"]["name"] for v in pod.get("volumes", []) if "configMap" in v), None)
    if runner_cm not in cms:
        failures.append("%s: the runner's ConfigMap %r is not in the rendering" % (where, runner_cm))
        return
    data = cms[runner_cm].get("data", {})
    if "run-nightly.sh" not in data or "job.yaml" not in data:
        failures.append("%s: runner ConfigMap lacks run-nightly.sh or job.yaml" % where)
        return
    job_docs = [d for d in yaml.safe_load_all(data["job.yaml"]) if d]
    jobs = [d for d in job_docs if d.get("kind") == kind]
    if kind == "Job":
        job = one_job(job_docs, where + " job.yaml", failures)
    elif len(jobs) == 1 and not volcano_jobs(job_docs):
        job = jobs[0]
    else:
        failures.append("%s job.yaml: expected one %s and no Volcano Job" % (where, kind))
        job = None
    if job is not None:
        failures.extend_with(where + " job.yaml", rules.check_job(docs + job_docs, job, expect))
        check_nightly_master(where + " job.yaml", docs, job, failures)


def check_rbac(where, docs, account, failures, job_kind=RUNNER_JOBS["Job"]):
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    if account not in by_kind.get("ServiceAccount", {}):
        failures.append("%s: ServiceAccount %r not in the rendering" % (where, account))
    bound = [b["roleRef"]["name"] for b in by_kind.get("RoleBinding", {}).values()
             if any(s.get("name") == account for s in b.get("subjects", []))]
    group, resource = job_kind
    rules_of = [r for name in bound for r in by_kind.get("Role", {}).get(name, {}).get("rules", [])]
    can = lambda verb, g, res: any(g in r.get("apiGroups", []) and res in r.get("resources", [])
                                   and verb in r.get("verbs", []) for r in rules_of)
    for verb in ("create", "get", "delete"):
        if not can(verb, group, resource):
            failures.append("%s: %r may not %s %s %s (bound roles %s)" % (where, account, verb, group, resource, bound))
    # Least privilege: the other nightly's kind is not this runner's business.
    for other in RUNNER_JOBS.values():
        if other != job_kind and can("create", *other):
            failures.append("%s: %r may create %s %s too" % (where, account, *other))


def cmd_schema(args, stage, failures):
    crd_dir = os.path.join(args.shared, "reference", "volcano-crd")
    if not os.path.isdir(crd_dir):
        print("SKIP: %s not found (../shared beside the repository): the Volcano CRD schemas "
              "are not checked; the project's rules still are (manifests.overlays, ...)" % crd_dir)
        return SKIP_CODE
    import crd_schema
    validators = crd_schema.load_validators(crd_dir)
    rendered = ["volcano/overlays/" + s for s in overlays(args.repo)]
    rendered += ["volcano/nightly/volcano", "volcano/nightly/kubernetes/job"]
    count = 0
    for where in rendered:
        for doc in stage.render(where):
            problems = crd_schema.validate(validators, doc)
            failures.extend_with(where, problems)
            count += crd_schema.covers(validators, doc)
    for mode in MODES:
        proc = helper(stage, "render", "--shape", DEFAULT_SHAPE, "--mode", mode, "--nodes", "3",
                      "--test-id", "s1", "--namespace", "ns1", "--", "all_reduce", "-e", "1G")
        for doc in yaml.safe_load_all(proc.stdout):
            if doc:
                failures.extend_with("render --mode " + mode, crd_schema.validate(validators, doc))
                count += 1
    # The schema must be able to fail: a Job with a misplaced field is rejected.
    bad = volcano_jobs(stage.render("volcano/overlays/" + DEFAULT_SHAPE))[0]
    bad["spec"]["activeDeadlineSeconds"] = 600
    if not crd_schema.validate(validators, bad):
        failures.append("schema: a Job with spec.activeDeadlineSeconds (a pod field) passed")
    print("ok: %d Volcano objects validated against %s" % (count, crd_dir))


def strip_header(text):
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "".join(lines)


def check_shape_nccl_env(repo, shape, failures):
    """A shape's nccl.env holds exactly the settings of topology/<shape>.conf but NCCL_IB_HCA:
    one source of the values for bare metal and the pods."""
    def settings(path, drop=()):
        with open(path) as f:
            pairs = [line.strip().split("=", 1) for line in f
                     if line.strip() and not line.startswith("#")]
        return {k: v for k, v in pairs if k not in drop}
    conf = os.path.join(repo, "topology", shape + ".conf")
    env = os.path.join(repo, "volcano", "components", "shapes", shape, "nccl.env")
    if not os.path.exists(conf):
        failures.append("topology/%s.conf is missing" % shape)
        return
    if settings(env) != settings(conf, drop=("NCCL_IB_HCA",)):
        failures.append("volcano/components/shapes/%s/nccl.env differs from topology/%s.conf: run "
                        "scripts/commsweep-k8s regenerate and commit the result" % (shape, shape))


def cmd_generated(args, stage, failures):
    pairs = [("volcano/volcano-job.yaml", "volcano/overlays/" + DEFAULT_SHAPE),
             ("volcano/nightly/kubernetes/job.yaml", "volcano/nightly/kubernetes/job"),
             ("volcano/kueue/mpijob.yaml", "volcano/kueue/overlays/" + DEFAULT_SHAPE),
             ("volcano/kueue/nightly/job.yaml", "volcano/kueue/nightly/job")]
    for generated, source in pairs:
        path = os.path.join(args.repo, generated)
        if not os.path.exists(path):
            failures.append("%s is missing: run scripts/commsweep-k8s regenerate" % generated)
            continue
        with open(path) as f:
            have = f.read()
        if not have.startswith("# Generated"):
            failures.append("%s lost its 'Generated' header" % generated)
        if strip_header(have) != stage.render_text(source):
            failures.append("%s differs from the rendering of %s: run scripts/commsweep-k8s "
                            "regenerate and commit the result" % (generated, source))
    for shape in SHAPES:
        check_shape_nccl_env(args.repo, shape, failures)
    if stage.placeholders:
        print("NOTE: compared with placeholder topology files; once topology/<shape>.xml land, "
              "run scripts/commsweep-k8s regenerate (this check then fails until it is run)")
    print("ok: generated manifests checked")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command")
    parser.add_argument("--repo", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--kubectl", default=shutil.which("kubectl"))
    parser.add_argument("--shared", default=None)
    parser.add_argument("--build", default=None)
    args = parser.parse_args()
    args.repo = os.path.abspath(args.repo)
    args.shared = args.shared or os.path.join(os.path.dirname(args.repo), "shared")
    if not args.kubectl:
        print("SKIP: kubectl not found: the manifests cannot be rendered here")
        return SKIP_CODE
    import health_checks
    import helper_checks
    import kueue_checks
    commands = {"kueue": kueue_checks.cmd_kueue, "kueue_schema": kueue_checks.cmd_kueue_schema,
                "health": health_checks.cmd_health,
                "overlays": cmd_overlays, "modes": cmd_modes, "nightly": cmd_nightly,
                "schema": cmd_schema, "generated": cmd_generated, "security": cmd_security,
                "helper": helper_checks.cmd_helper, "image": helper_checks.cmd_image}
    if args.command not in commands:
        parser.error("unknown command %s; one of %s" % (args.command, ", ".join(commands)))
    os.makedirs(args.workdir, exist_ok=True)
    stage = Stage(args.repo, args.workdir, args.kubectl)
    failures = Failures()
    try:
        code = commands[args.command](args, stage, failures)
    except AssertionError as e:
        failures.append(str(e))
        code = None
    finally:
        shutil.rmtree(stage.root, ignore_errors=True)
    if code == SKIP_CODE:
        return SKIP_CODE
    for f in failures:
        print("FAIL: " + f)
    print("%s: %s" % (args.command, "FAILED (%d)" % len(failures) if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
