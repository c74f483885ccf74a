"""Validation of rendered Volcano objects against Volcano's CustomResourceDefinitions.

The CRDs (../shared/reference/volcano-crd) are read, never copied. Their openAPIV3Schema is a
structural schema: the API server silently prunes fields it does not describe, so a typo in a
manifest (activeDeadlineSeconds at the Job's level, say) would be lost without an error. To
catch that, every object schema that lists properties and does not preserve unknown fields is
made closed (additionalProperties: false) before validating.
"""
import copy
import os

import jsonschema
import yaml

CRD_FILES = {
    "Job": "batch.volcano.sh_jobs.yaml",
    "CronJob": "batch.volcano.sh_cronjobs.yaml",
}


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


def load_validators(crd_dir):
    validators = {}
    for kind, name in CRD_FILES.items():
        with open(os.path.join(crd_dir, name)) as f:
            crd = yaml.safe_load(f)
        version = crd["spec"]["versions"][0]
        schema = close_objects(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
        validators[kind] = (crd["spec"]["group"] + "/" + version["name"],
                            jsonschema.Draft7Validator(schema))
    return validators


def validate(validators, doc):
    """Messages for one rendered object (empty: valid); objects of other groups are skipped."""
    kind = doc.get("kind")
    if kind not in validators or validators[kind][0] != doc.get("apiVersion"):
        return []
    errors = sorted(validators[kind][1].iter_errors(doc), key=lambda e: list(e.path))
    return ["%s %s: %s: %s" % (kind, doc["metadata"].get("name"),
                               "/".join(str(p) for p in e.path) or "(top)", e.message)
            for e in errors]
