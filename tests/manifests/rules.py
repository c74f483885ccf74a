"""The project's rules for a rendered Volcano Job or MPIJob (ARCHITECTURE.md, issues 9 and 17).

check_job(docs, job, expect) returns a list of messages, each naming the rule and the field;
an empty list means the Job keeps every rule. `docs` is the whole rendering (ConfigMaps that
the Job references must be in it), `job` a batch.volcano.sh Job (or a CronJob's job spec
wrapped as one) or a kubeflow.org MPIJob, `expect` what the overlay or command line asked for.
The pods' rules (PodsCheck) are one code for both wrappers: they wrap the same pods.
"""
import os
import posixpath
import re

import security
from stage import SHAPES

DNS_LABEL_MAX = 63  # a pod's host name (Volcano uses the pod name) is a DNS label
SSH_PORT_ENV = "COMMSWEEP_SSH_PORT"
TEST_ID_LABEL = "app.kubernetes.io/instance"
RDMA_KEYS = ("rdma/", "nvidia.com/sriov", "openshift.io/")
NETWORKS = "k8s.v1.cni.cncf.io/networks"


class Expect:
    def __init__(self, shape, mode, workers=None, job_name=None, namespace=None,
                 test_id=None, home=None, default_node_selector=True, queue=None, topology=None):
        self.shape, self.mode, self.workers = shape, mode, workers
        self.queue, self.topology = queue, topology
        self.default_node_selector = default_node_selector
        self.job_name, self.namespace, self.test_id, self.home = job_name, namespace, test_id, home


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def env_value(container, name):
    entry = env_of(container).get(name)
    return None if entry is None else entry.get("value")


def configmaps(docs):
    return {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}


class PodsCheck:
    """The rules of the two pods (mpimaster, mpiworker: the launcher and the workers), whatever
    wraps them; a wrapper's subclass finds the pod templates (self.templates, by role) and checks
    its own fields (check_job_level, check_wrapper)."""
    ROLES = ("mpimaster", "mpiworker")

    def __init__(self, docs, job, expect):
        self.docs, self.job, self.x = docs, job, expect
        self.cms = configmaps(docs)
        self.problems = []
        self.spec = job.get("spec", {})
        self.templates = {}

    def template(self, role):
        return self.templates[role]

    def fail(self, rule, message):
        self.problems.append("%s: %s" % (rule, message))

    def expect_eq(self, rule, what, got, want):
        if got != want:
            self.fail(rule, "%s is %r, expected %r" % (what, got, want))

    # --- the pods -----------------------------------------------------------------------
    def check_pods(self):
        for role in self.ROLES:
            pod = self.template(role)["spec"]
            self.expect_eq("restart", "%s restartPolicy" % role, pod.get("restartPolicy"), "Never")
            deadline = pod.get("activeDeadlineSeconds")
            if not isinstance(deadline, int) or deadline <= 0:
                self.fail("deadline", "%s has no positive activeDeadlineSeconds" % role)
            self.problems.extend(security.check_pod_security(role, pod))
            labels = self.template(role).get("metadata", {}).get("labels", {})
            self.expect_eq("labels", "%s label app.kubernetes.io/name" % role,
                           labels.get("app.kubernetes.io/name"), "commsweep")
            self.expect_eq("labels", "%s test id label" % role, labels.get(TEST_ID_LABEL),
                           self.job["metadata"].get("labels", {}).get(TEST_ID_LABEL))
            if len(pod.get("containers", [])) != 1:
                self.fail("tasks", "%s must have one container" % role)

    def check_pod_names(self, pods):
        for pod in pods:
            if len(pod) > DNS_LABEL_MAX:
                self.fail("pod names", "%s is %d characters, more than %d"
                          % (pod, len(pod), DNS_LABEL_MAX))

    def check_job_labels(self, kind):
        labels = self.job.get("metadata", {}).get("labels", {})
        self.expect_eq("labels", "%s label app.kubernetes.io/name" % kind,
                       labels.get("app.kubernetes.io/name"), "commsweep")
        if not labels.get(TEST_ID_LABEL):
            self.fail("labels", "%s has no test id label %s" % (kind, TEST_ID_LABEL))
        if self.x.test_id is not None:
            self.expect_eq("labels", "%s test id" % kind, labels.get(TEST_ID_LABEL), self.x.test_id)
        if self.x.job_name is not None:
            self.expect_eq("names", "%s name" % kind, self.job["metadata"].get("name"), self.x.job_name)
        if self.x.namespace is not None:
            self.expect_eq("namespace", "%s namespace" % kind,
                           self.job["metadata"].get("namespace"), self.x.namespace)

    # --- containers ---------------------------------------------------------------------
    def nccl_env(self, container):
        merged = {}
        for ref in container.get("envFrom", []):
            name = ref.get("configMapRef", {}).get("name")
            if name not in self.cms:
                self.fail("configmaps", "envFrom names ConfigMap %s, not in the rendering" % name)
                continue
            merged.update(self.cms[name].get("data", {}))
        return merged

    def check_common_container(self, task, container, entrypoint):
        home = env_value(container, "COMMSWEEP_HOME")
        if self.x.home is not None:
            self.expect_eq("install prefix", "%s COMMSWEEP_HOME" % task, home, self.x.home)
        self.expect_eq("entrypoint", "%s command" % task, container.get("command"),
                       ["$(COMMSWEEP_HOME)/scripts/%s" % entrypoint])
        self.expect_eq("shape", "%s COMMSWEEP_SHAPE" % task,
                       env_value(container, "COMMSWEEP_SHAPE"), self.x.shape)
        self.expect_eq("mode", "%s COMMSWEEP_FABRIC_MODE" % task,
                       env_value(container, "COMMSWEEP_FABRIC_MODE"), self.x.mode)

    def check_master(self):
        c = self.template("mpimaster")["spec"]["containers"][0]
        self.check_common_container("mpimaster", c, "entrypoint-master.sh")
        res = c.get("resources", {})
        for part in ("limits", "requests"):
            if any(k == "nvidia.com/gpu" or k.startswith(RDMA_KEYS) for k in res.get(part, {})):
                self.fail("master", "mpimaster asks for GPUs or RDMA in %s: %s" % (part, res[part]))
        gpus = SHAPES[self.x.shape]["gpus"]
        self.expect_eq("shape", "mpimaster COMMSWEEP_GPUS_PER_NODE",
                       env_value(c, "COMMSWEEP_GPUS_PER_NODE"), str(gpus))
        grace = self.template("mpimaster")["spec"].get("terminationGracePeriodSeconds", 30)
        if grace < 30:
            self.fail("termination", "mpimaster's grace %d s leaves mpirun no time to forward "
                      "SIGTERM to the ranks" % grace)
        self.nccl_env(c)
        return c

    def check_worker(self, master):
        pod = self.template("mpiworker")["spec"]
        c = pod["containers"][0]
        self.check_common_container("mpiworker", c, "entrypoint-worker.sh")
        self.check_gpus(c)
        self.check_rdma(c)
        caps = c.get("securityContext", {}).get("capabilities", {}).get("add", [])
        if "IPC_LOCK" not in caps:
            self.fail("security", "mpiworker lacks capability IPC_LOCK (have %s)" % caps)
        self.check_ssh(master, c)
        self.check_shm(pod, c)
        self.check_topology(pod, c, self.nccl_env(c))
        self.check_anti_affinity(pod)
        if self.x.default_node_selector:
            self.expect_eq("node selector", "mpiworker node.kubernetes.io/instance-type",
                           pod.get("nodeSelector", {}).get("node.kubernetes.io/instance-type"),
                           self.x.shape)

    def check_gpus(self, c):
        gpus = SHAPES[self.x.shape]["gpus"]
        res = c.get("resources", {})
        self.expect_eq("gpus", "mpiworker limits nvidia.com/gpu",
                       res.get("limits", {}).get("nvidia.com/gpu"), gpus)
        if "nvidia.com/gpu" in res.get("requests", {}):
            self.expect_eq("gpus", "mpiworker requests nvidia.com/gpu",
                           res["requests"]["nvidia.com/gpu"], gpus)

    def check_rdma(self, c):
        limits = c.get("resources", {}).get("limits", {})
        rdma = {k: v for k, v in limits.items() if k.startswith(RDMA_KEYS)}
        annotations = self.template("mpiworker").get("metadata", {}).get("annotations", {})
        nets = annotations.get(NETWORKS)
        if self.x.mode == "tcp":
            want, want_nets = {}, None
        elif self.x.mode == "ib":
            want, want_nets = {"rdma/ib": 1}, None
        else:
            ports = SHAPES[self.x.shape]["rdma_ports"]
            want = {"nvidia.com/sriov_rdma_vf": ports}
            want_nets = ",".join(["sriov-rdma-vf"] * ports)
        self.expect_eq("rdma", "mpiworker RDMA limits", rdma, want)
        self.expect_eq("rdma", "mpiworker annotation %s" % NETWORKS, nets, want_nets)

    def check_ssh(self, master, worker):
        port = env_value(worker, SSH_PORT_ENV)
        self.expect_eq("ssh port", "mpimaster %s" % SSH_PORT_ENV, env_value(master, SSH_PORT_ENV), port)
        ports = {p.get("name"): p.get("containerPort") for p in worker.get("ports", [])}
        self.expect_eq("ssh port", "mpiworker containerPort 'ssh'", str(ports.get("ssh")), port)
        probe = worker.get("readinessProbe", {}).get("tcpSocket", {}).get("port")
        if probe not in ("ssh", ports.get("ssh")):
            self.fail("ssh port", "mpiworker readinessProbe checks %r, not the ssh port" % probe)

    def volume(self, pod, name):
        return next((v for v in pod.get("volumes", []) if v.get("name") == name), None)

    def mount_at(self, c, path):
        return next((m for m in c.get("volumeMounts", []) if m.get("mountPath") == path), None)

    def check_shm(self, pod, c):
        m = self.mount_at(c, "/dev/shm")
        vol = self.volume(pod, m["name"]) if m else None
        empty = (vol or {}).get("emptyDir", {})
        if not m or empty.get("medium") != "Memory" or not empty.get("sizeLimit"):
            self.fail("shm", "/dev/shm must be a memory emptyDir with a sizeLimit (got %r)" % vol)

    def check_topology(self, pod, c, nccl):
        topo = nccl.get("NCCL_TOPO_FILE")
        if not topo:
            self.fail("topology", "the NCCL ConfigMap sets no NCCL_TOPO_FILE")
            return
        self.expect_eq("topology", "NCCL_TOPO_FILE", topo,
                       "/etc/commsweep/topology/%s.xml" % self.x.shape)
        m = self.mount_at(c, posixpath.dirname(topo))
        if not m:
            self.fail("topology", "no volume mounted at %s, where NCCL_TOPO_FILE points"
                      % posixpath.dirname(topo))
            return
        if not m.get("readOnly"):
            self.fail("topology", "the topology mount must be readOnly")
        cm_ref = (self.volume(pod, m["name"]) or {}).get("configMap", {})
        items = {i.get("path"): i.get("key") for i in cm_ref.get("items", [])}
        key = items.get(posixpath.basename(topo), posixpath.basename(topo) if not items else None)
        cm = self.cms.get(cm_ref.get("name"))
        if cm is None:
            self.fail("topology", "volume %s names ConfigMap %r, not in the rendering"
                      % (m["name"], cm_ref.get("name")))
        elif key not in cm.get("data", {}):
            self.fail("topology", "%s is not a file of the mount (ConfigMap %s has %s, items %s)"
                      % (topo, cm_ref.get("name"), sorted(cm.get("data", {})), items))

    def check_anti_affinity(self, pod):
        terms = (pod.get("affinity", {}).get("podAntiAffinity", {})
                 .get("requiredDuringSchedulingIgnoredDuringExecution", []))
        labels = self.template("mpiworker").get("metadata", {}).get("labels", {})
        ok = any(t.get("topologyKey") == "kubernetes.io/hostname" and
                 t.get("labelSelector", {}).get("matchLabels", {}).items() <= labels.items() and
                 t.get("labelSelector", {}).get("matchLabels", {}).get(TEST_ID_LABEL)
                 for t in terms)
        if not ok:
            self.fail("one worker per node", "no required anti-affinity on kubernetes.io/hostname "
                      "selecting this run's workers (terms %s, worker labels %s)" % (terms, labels))

    def run(self):
        self.check_job_level()
        if self.check_wrapper():
            self.check_pods()
            master = self.check_master()
            self.check_worker(master)
        return self.problems


class JobCheck(PodsCheck):
    """A batch.volcano.sh Job: tasks mpimaster and mpiworker, gang scheduling, the plugins."""

    def __init__(self, docs, job, expect):
        super().__init__(docs, job, expect)
        tasks = self.spec.get("tasks", [])
        self.tasks = {t.get("name"): t for t in tasks}
        self.task_order = [t.get("name") for t in tasks]
        self.templates = {name: t.get("template", {}) for name, t in self.tasks.items()}

    # --- the job as a whole -------------------------------------------------------------
    def check_job_level(self):
        s = self.spec
        self.expect_eq("scheduler", "spec.schedulerName", s.get("schedulerName"), "volcano")
        plugins = s.get("plugins", {})
        for p in ("ssh", "svc", "env"):
            if p not in plugins:
                self.fail("plugins", "plugin %s missing (have %s)" % (p, sorted(plugins)))
        self.problems.extend(security.check_job_plugins(s))
        if not s.get("queue"):
            self.fail("queue", "spec.queue is empty")
        if not isinstance(s.get("ttlSecondsAfterFinished"), int) or s["ttlSecondsAfterFinished"] <= 0:
            self.fail("ttl", "spec.ttlSecondsAfterFinished must be a positive number")
        self.check_policies()
        self.check_job_labels("Job")

    def check_policies(self):
        allowed = {"TerminateJob", "RestartJob", "AbortJob"}
        by_event = {p.get("event"): p.get("action") for p in self.spec.get("policies", [])}
        for event in ("PodFailed", "PodEvicted"):
            if by_event.get(event) not in allowed:
                self.fail("policies", "job policy for %s is %r, expected one of %s"
                          % (event, by_event.get(event), sorted(allowed)))
        if "RestartJob" in by_event.values() and not self.spec.get("maxRetry", 0) > 0:
            self.fail("policies", "RestartJob without a positive spec.maxRetry")
        master = self.tasks.get("mpimaster", {})
        master_policies = {p.get("event"): p.get("action") for p in master.get("policies", [])}
        self.expect_eq("policies", "mpimaster's TaskCompleted action",
                       master_policies.get("TaskCompleted"), "CompleteJob")

    def check_wrapper(self):
        self.expect_eq("tasks", "task names in order", self.task_order, ["mpimaster", "mpiworker"])
        if self.task_order != ["mpimaster", "mpiworker"]:
            return False
        master, worker = self.tasks["mpimaster"], self.tasks["mpiworker"]
        self.expect_eq("tasks", "mpimaster replicas", master.get("replicas"), 1)
        workers = worker.get("replicas")
        if self.x.workers is not None:
            self.expect_eq("tasks", "mpiworker replicas", workers, self.x.workers)
        self.expect_eq("gang", "spec.minAvailable (1 master + workers)",
                       self.spec.get("minAvailable"), 1 + (workers or 0))
        job = self.job["metadata"].get("name", "")
        self.check_pod_names(["%s-mpiworker-%d" % (job, (workers or 1) - 1), "%s-mpimaster-0" % job])
        return True



def check_no_passwords(text):
    """ssh works with the plugin's key pair only: no password, no Secret of our own."""
    lowered = text.lower()
    problems = []
    if "password" in lowered:
        problems.append("no passwords: the rendering mentions 'password'")
    if "\nkind: secret" in lowered:
        problems.append("no passwords: the rendering carries a Secret (ssh keys come only "
                        "from the ssh plugin's <job>-ssh Secret)")
    return problems


def dockerfile_home(repo):
    with open(os.path.join(repo, "volcano", "Dockerfile")) as f:
        for line in f:
            if line.startswith("ENV COMMSWEEP_HOME="):
                return line.split("=", 1)[1].strip()
    return None


# The MPIJob wrapper (kubeflow.org/v2beta1, mpi-operator v0.8.2) and Kueue's fields on it.
MPIJOB_API = "kubeflow.org/v2beta1"
MPI_HOSTFILE = "/etc/mpi/hostfile"          # mpi-operator's ConfigMap <job>-config, in the launcher
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TOPOLOGY_ANNOTATIONS = ("kueue.x-k8s.io/podset-required-topology",
                        "kueue.x-k8s.io/podset-preferred-topology")
# mpi-operator names the launcher's batch Job <mpijob>-launcher: a label value (job-name) and the
# launcher pod's host name, so a DNS label.
LAUNCHER_SUFFIX = "-launcher"
LABEL_KEY = r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"


class MPIJobCheck(PodsCheck):
    """An MPIJob queued by Kueue: Launcher (the mpimaster pod) and Worker (the mpiworker pods).
    Expect.queue and Expect.topology ((annotation kind, level) or "none") add what a run asked."""
    REPLICA_ROLES = {"Launcher": "mpimaster", "Worker": "mpiworker"}

    def __init__(self, docs, job, expect):
        super().__init__(docs, job, expect)
        self.replicas = self.spec.get("mpiReplicaSpecs", {})
        self.templates = {role: self.replicas.get(kind, {}).get("template", {})
                          for kind, role in self.REPLICA_ROLES.items()}

    def check_job_level(self):
        s = self.spec
        self.expect_eq("mpijob", "apiVersion", self.job.get("apiVersion"), MPIJOB_API)
        self.expect_eq("mpijob", "spec.mpiImplementation", s.get("mpiImplementation"), "OpenMPI")
        self.expect_eq("mpijob", "spec.launcherCreationPolicy", s.get("launcherCreationPolicy"),
                       "WaitForWorkersReady")
        self.expect_eq("gpus", "spec.slotsPerWorker (ranks per worker)", s.get("slotsPerWorker"),
                       SHAPES[self.x.shape]["gpus"])
        run = s.get("runPolicy", {})
        if run.get("cleanPodPolicy") not in ("Running", "All"):
            self.fail("run policy", "runPolicy.cleanPodPolicy %r leaves workers running after the "
                      "launcher ended" % run.get("cleanPodPolicy"))
        self.expect_eq("run policy", "runPolicy.backoffLimit (a failed run is a result)",
                       run.get("backoffLimit"), 0)
        for field in ("activeDeadlineSeconds", "ttlSecondsAfterFinished"):
            if not isinstance(run.get(field), int) or run[field] <= 0:
                self.fail("run policy", "runPolicy.%s must be a positive number" % field)
        self.expect_eq("kueue", "runPolicy.suspend (Kueue admits the job)", run.get("suspend"), True)
        self.check_job_labels("MPIJob")
        self.check_queue()

    def check_queue(self):
        queue = self.job.get("metadata", {}).get("labels", {}).get(QUEUE_LABEL)
        if not queue:
            self.fail("kueue", "MPIJob has no %s label: Kueue would not admit it" % QUEUE_LABEL)
        elif self.x.queue is not None:
            self.expect_eq("kueue", "MPIJob label " + QUEUE_LABEL, queue, self.x.queue)

    def check_topology_request(self):
        annotations = self.template("mpiworker").get("metadata", {}).get("annotations", {})
        asked = {k: v for k, v in annotations.items() if k in TOPOLOGY_ANNOTATIONS}
        want = self.x.topology
        if want == "none":
            self.expect_eq("topology", "Worker topology annotations", asked, {})
            return
        if len(asked) != 1:
            self.fail("topology", "Worker template needs one of %s, has %s"
                      % (list(TOPOLOGY_ANNOTATIONS), sorted(asked)))
            return
        key, level = next(iter(asked.items()))
        if not re.match(LABEL_KEY, level or ""):
            self.fail("topology", "%s: %r is not a node label key" % (key, level))
        if want is not None:
            self.expect_eq("topology", "Worker topology request",
                           (key.split("-")[-2], level), want)
        launcher = self.template("mpimaster").get("metadata", {}).get("annotations", {})
        if any(k in TOPOLOGY_ANNOTATIONS for k in launcher):
            self.fail("topology", "the Launcher asks for a topology domain; only the workers talk RDMA")

    def check_wrapper(self):
        kinds = sorted(self.replicas)
        self.expect_eq("replicas", "mpiReplicaSpecs", kinds, sorted(self.REPLICA_ROLES))
        if kinds != sorted(self.REPLICA_ROLES):
            return False
        self.expect_eq("replicas", "Launcher replicas", self.replicas["Launcher"].get("replicas"), 1)
        workers = self.replicas["Worker"].get("replicas")
        if self.x.workers is not None:
            self.expect_eq("replicas", "Worker replicas", workers, self.x.workers)
        for kind, spec in self.replicas.items():
            self.expect_eq("restart", "%s restartPolicy" % kind, spec.get("restartPolicy"), "Never")
        deadline = self.spec.get("runPolicy", {}).get("activeDeadlineSeconds")
        for role in self.ROLES:
            pod_deadline = self.template(role).get("spec", {}).get("activeDeadlineSeconds")
            if isinstance(deadline, int) and isinstance(pod_deadline, int) and pod_deadline > deadline:
                self.fail("deadline", "%s's activeDeadlineSeconds %d outlives the job's %d"
                          % (role, pod_deadline, deadline))
        master = self.template("mpimaster").get("spec", {}).get("containers", [{}])[0]
        self.expect_eq("hostfile", "launcher COMMSWEEP_HOSTFILE", env_value(master, "COMMSWEEP_HOSTFILE"),
                       MPI_HOSTFILE)
        for role in self.ROLES:
            c = self.template(role).get("spec", {}).get("containers", [{}])[0]
            ssh_dir = env_value(c, "COMMSWEEP_SSH_DIR") or "/root/.ssh"
            self.expect_eq("ssh", "spec.sshAuthMountPath (where %s reads the key)" % role,
                           self.spec.get("sshAuthMountPath"), ssh_dir)
        self.check_topology_request()
        job = self.job["metadata"].get("name", "")
        self.check_pod_names(["%s-worker-%d" % (job, (workers or 1) - 1), job + LAUNCHER_SUFFIX])
        return True


def check_job(docs, job, expect):
    """The rules for a rendered Volcano Job or MPIJob (by its kind)."""
    check = MPIJobCheck if job.get("kind") == "MPIJob" else JobCheck
    return check(docs, job, expect).run()
