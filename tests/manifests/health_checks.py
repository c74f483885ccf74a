"""The health thresholds ConfigMap (volcano/components/health-thresholds) in a Volcano Job and in
an MPIJob (Kueue): the renderings still pass every rule, the ConfigMap holds a thresholds file,
and the master (Launcher) and the workers mount it read-only where COMMSWEEP_HEALTH_THRESHOLDS
points. With --build, the rendered file is read by the real commsweep (exit 0).
"""
import os
import subprocess

import yaml

import rules
import security
from stage import NATURAL_MODE, one_job

SHAPE = "BM.GPU.H200.8"
MOUNT = "/etc/commsweep/health"
FILE = MOUNT + "/thresholds.yaml"
COMPONENT = "components/health-thresholds"


def write(stage, rel_dir, text):
    os.makedirs(stage.path(rel_dir), exist_ok=True)
    with open(stage.path(rel_dir, "kustomization.yaml"), "w") as f:
        f.write(text)


def volcano_overlay(stage):
    """The shape's overlay with the component added."""
    write(stage, "volcano/overlays/_health", "resources:\n  - ../%s\ncomponents:\n  - ../../%s\n" % (SHAPE, COMPONENT))
    return "volcano/overlays/_health"


def kueue_overlay(stage):
    """The shape's Kueue overlay with the component before the mpijob wrapper (which copies the pods)."""
    with open(stage.path("volcano/kueue/overlays", SHAPE, "kustomization.yaml")) as f:
        doc = yaml.safe_load(f)
    at = doc["components"].index("../../components/mpijob")
    doc["components"].insert(at, "../../../" + COMPONENT)
    doc["resources"] = ["../" + SHAPE + "/" + r for r in doc["resources"]]
    doc["components"] = [c if c.startswith("../../../" + COMPONENT) else "../" + SHAPE + "/" + c for c in doc["components"]]
    write(stage, "volcano/kueue/overlays/_health", yaml.safe_dump(doc))
    return "volcano/kueue/overlays/_health"


def the_configmap(where, docs, failures):
    maps = [d for d in docs if d.get("kind") == "ConfigMap" and d["metadata"]["name"].startswith("commsweep-health-thresholds")]
    if len(maps) != 1 or "thresholds.yaml" not in maps[0].get("data", {}):
        failures.append("%s: no ConfigMap commsweep-health-thresholds with thresholds.yaml" % where)
        return None
    if "schema: commsweep.health-thresholds/1" not in maps[0]["data"]["thresholds.yaml"]:
        failures.append("%s: thresholds.yaml has no schema line" % where)
    return maps[0]


def check_pod(where, pod, configmap, failures):
    """POD mounts CONFIGMAP read-only at MOUNT and names FILE in COMMSWEEP_HEALTH_THRESHOLDS."""
    volumes = [v["name"] for v in pod.get("volumes", []) if v.get("configMap", {}).get("name") == configmap]
    container = pod["containers"][0]
    mounts = [m for m in container.get("volumeMounts", []) if m["name"] in volumes]
    if len(volumes) != 1 or len(mounts) != 1 or mounts[0]["mountPath"] != MOUNT or not mounts[0].get("readOnly"):
        failures.append("%s: %s is not mounted read-only at %s (volumes %s, mounts %s)"
                        % (where, configmap, MOUNT, volumes, mounts))
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    if env.get("COMMSWEEP_HEALTH_THRESHOLDS") != FILE:
        failures.append("%s: COMMSWEEP_HEALTH_THRESHOLDS is %r, not %s" % (where, env.get("COMMSWEEP_HEALTH_THRESHOLDS"), FILE))


def check_with_commsweep(args, stage, configmap, failures):
    binary = os.path.join(args.build or "", "commsweep")
    if not args.build or not os.path.exists(binary):
        print("NOTE: no built commsweep (--build): the ConfigMap's file is checked by the unit tests only")
        return
    path = stage.path("thresholds-from-configmap.yaml")
    with open(path, "w") as f:
        f.write(configmap["data"]["thresholds.yaml"])
    # A healthy tree (a health check that reads nothing fails, exit 6): the file's rules judge it.
    tree = os.path.join(args.repo, "tests", "fixtures", "health", "ib_flapped", "before")
    proc = subprocess.run([binary, "health", "--no-gpus", "--sysfs-root", tree,
                           "--health-thresholds", path], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        failures.append("commsweep health --health-thresholds (the ConfigMap's file): exit %d: %s"
                        % (proc.returncode, proc.stderr.strip()))


def cmd_health(args, stage, failures):
    import kueue_checks
    home = rules.dockerfile_home(args.repo)
    where = "%s with %s" % (SHAPE, COMPONENT)
    text = stage.render_text(volcano_overlay(stage))
    docs = [d for d in yaml.safe_load_all(text) if d]
    failures.extend_with(where, security.check_rendering(docs))
    job = one_job(docs, where, failures)
    configmap = the_configmap(where, docs, failures)
    if job is not None:
        failures.extend_with(where, rules.check_job(docs, job, rules.Expect(SHAPE, NATURAL_MODE, workers=2, home=home)))
        for task in job["spec"]["tasks"]:
            if configmap is not None:
                check_pod("%s task %s" % (where, task["name"]), task["template"]["spec"], configmap["metadata"]["name"], failures)
    where = "Kueue %s with %s" % (SHAPE, COMPONENT)
    text = stage.render_text(kueue_overlay(stage))
    mpijob = kueue_checks.check_mpijob_rendering(where, text, rules.Expect(
        SHAPE, NATURAL_MODE, workers=2, home=home, queue=kueue_checks.DEFAULT_QUEUE,
        topology=kueue_checks.DEFAULT_TOPOLOGY), failures)
    kueue_map = the_configmap(where, kueue_checks.docs_of(text), failures)
    if mpijob is not None and kueue_map is not None:
        for role, spec in mpijob["spec"]["mpiReplicaSpecs"].items():
            check_pod("%s %s" % (where, role), spec["template"]["spec"], kueue_map["metadata"]["name"], failures)
    if configmap is not None:
        check_with_commsweep(args, stage, configmap, failures)
    print("ok: the health thresholds ConfigMap in the Volcano Job and the MPIJob of %s" % SHAPE)
