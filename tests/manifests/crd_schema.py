"""Validation of rendered objects against their CustomResourceDefinitions: Volcano's Job and
CronJob, mpi-operator's MPIJob, Kueue's ClusterQueue, LocalQueue, ResourceFlavor and Topology.

The CRDs (../shared/reference/<set>) are read, never copied. Their openAPIV3Schema is a
structural schema: the API server silently prunes fields it does not describe, so a typo in a
manifest (activeDeadlineSeconds at the Job's level, say) would be lost without an error. To
catch that, every object schema that lists properties and does not preserve unknown fields is
made closed (additionalProperties: false) before validating.
"""
import copy
import os

import jsonschema
import yaml

# The CRD files of each reference folder, by the kind they define.
CRD_SETS = {
    "volcano-crd": {
        "Job": "batch.volcano.sh_jobs.yaml",
        "CronJob": "batch.volcano.sh_cronjobs.yaml",
    },
    "mpi-operator-crd": {
        "MPIJob": "kubeflow.org_mpijobs.yaml",
    },
    "kueue-crd": {
        "ClusterQueue": "kueue.x-k8s.io_clusterqueues.yaml",
        "LocalQueue": "kueue.x-k8s.io_localqueues.yaml",
        "ResourceFlavor": "kueue.x-k8s.io_resourceflavors.yaml",
        "Topology": "kueue.x-k8s.io_topologies.yaml",
    },
}
CRD_FILES = CRD_SETS["volcano-crd"]


def close_objects(node):
    if isinstance(node, dict):
        if ("properties" in node and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
        for value in node.values():
            close_objects(value)
    elif isinstance(node, list):
        for value in node:
            close_objects(value)
    return node


def load_validators(crd_dir, files=None):
    """Validators keyed by (apiVersion, kind), one for every version each CRD serves."""
    validators = {}
    for kind, name in (files or CRD_FILES).items():
        with open(os.path.join(crd_dir, name)) as f:
            crd = yaml.safe_load(f)
        for version in crd["spec"]["versions"]:
            if not version.get("served", True):
                continue
            schema = close_objects(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
            validators[(crd["spec"]["group"] + "/" + version["name"], kind)] = \
                jsonschema.Draft7Validator(schema)
    return validators


def covers(validators, doc):
    """True when the object is of a kind and version these validators check."""
    return (doc.get("apiVersion"), doc.get("kind")) in validators


def validate(validators, doc):
    """Messages for one rendered object (empty: valid); objects of other kinds are skipped."""
    if not covers(validators, doc):
        return []
    validator = validators[(doc["apiVersion"], doc["kind"])]
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    return ["%s %s: %s: %s" % (doc["kind"], doc["metadata"].get("name"),
                               "/".join(str(p) for p in e.path) or "(top)", e.message)
            for e in errors]
