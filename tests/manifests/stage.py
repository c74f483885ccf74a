"""A scratch copy of the repository's manifests, and kustomize renderings of it.

Every rendering is made from a copy (volcano/, topology/, scripts/, results/) so that a test
never writes into the checkout. A shape whose topology/<shape>.xml is not in the checkout yet
(the topology lane writes them) gets a placeholder in the copy, said aloud, so that the rules
can still be checked; the generated-files check then compares against placeholder renderings.
"""
import os
import shutil
import subprocess

import yaml

SHAPES = {
    # The test's own facts about each OCI shape (OCI's shape pages): GPUs per node and RDMA ports
    # (one SR-IOV VF each in roce-sriov mode). Independent of the manifests on purpose.
    "BM.GPU.H100.8": {"gpus": 8, "rdma_ports": 16},
    "BM.GPU.H200.8": {"gpus": 8, "rdma_ports": 8},
    "BM.GPU.A100-v2.8": {"gpus": 8, "rdma_ports": 16},
    "BM.GPU4.8": {"gpus": 8, "rdma_ports": 16},
    "BM.GPU.B4.8": {"gpus": 8, "rdma_ports": 8},
}
MODES = ("ib", "roce-sriov", "tcp")
NATURAL_MODE = "roce-sriov"
DEFAULT_SHAPE = "BM.GPU.H100.8"
COPIED = ("volcano", "topology", "scripts", "results")


def placeholder_xml(shape):
    gpus = "".join('      <gpu dev="%d"/>\n' % i for i in range(SHAPES[shape]["gpus"]))
    return ('<!-- placeholder: topology/%s.xml is not in this checkout yet; written by\n'
            '     tests/manifests into its scratch copy only -->\n'
            '<system version="1">\n  <cpu numaid="0">\n    <pci busid="0000:00:00.0">\n'
            '%s    </pci>\n  </cpu>\n</system>\n') % (shape, gpus)


class Stage:
    """volcano/ and friends copied under workdir/stage; placeholders for missing topology."""

    def __init__(self, repo, workdir, kubectl):
        self.repo = repo
        self.kubectl = kubectl
        self.root = os.path.join(workdir, "stage")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        for name in COPIED:
            shutil.copytree(os.path.join(repo, name), os.path.join(self.root, name))
        self.placeholders = []
        for shape in SHAPES:
            path = os.path.join(self.root, "topology", shape + ".xml")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write(placeholder_xml(shape))
                self.placeholders.append(shape)
        if self.placeholders:
            print("NOTE: topology/{%s}.xml not in this checkout: rendering with placeholders"
                  % ",".join(self.placeholders))

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def render_text(self, rel_dir):
        proc = subprocess.run([self.kubectl, "kustomize", self.path(rel_dir)],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise AssertionError("kubectl kustomize %s failed (exit %d): %s"
                                 % (rel_dir, proc.returncode, proc.stderr.strip()))
        return proc.stdout

    def render(self, rel_dir):
        return [d for d in yaml.safe_load_all(self.render_text(rel_dir)) if d]


def real_topology_gpus(repo, shape):
    """GPUs in the checkout's topology/<shape>.xml, or None when the file is not there."""
    path = os.path.join(repo, "topology", shape + ".xml")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().count("<gpu ")


def overlays(repo):
    return sorted(os.listdir(os.path.join(repo, "volcano", "overlays")))


def volcano_jobs(docs):
    return [d for d in docs if d.get("kind") == "Job" and d["apiVersion"].startswith("batch.volcano.sh/")]


def one_job(docs, where, failures):
    jobs = volcano_jobs(docs)
    if len(jobs) != 1:
        failures.append("%s: %d Volcano Jobs rendered, expected 1" % (where, len(jobs)))
        return None
    return jobs[0]


def helper(stage, *argv, ok_codes=(0,)):
    proc = subprocess.run([stage.path("scripts", "commsweep-k8s")] + list(argv),
                          capture_output=True, text=True, timeout=120)
    if proc.returncode not in ok_codes:
        raise AssertionError("commsweep-k8s %s: exit %d, stderr: %s"
                             % (" ".join(argv), proc.returncode, proc.stderr.strip()))
    return proc
