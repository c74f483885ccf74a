"""The pods' least privilege (issue 6, Security): what each pod of a rendered Job may have.

POLICY is the project's decision per task, the same in every fabric mode (ib, roce-sriov, tcp):
the capabilities each container adds after dropping ALL, and why. Nothing runs privileged, on
the host's network, PID or IPC namespace, with host paths, with a service account token, or
able to gain privileges (setuid binaries); the svc plugin's NetworkPolicy stays on and the
rendering brings no NetworkPolicy or Secret of its own (the ssh plugin's Secret is the only
credential). Every container runs under the runtime's default seccomp profile (RuntimeDefault),
set on the pod or on each container, and no container overrides it. check_pod_security and check_rendering return messages (empty: kept).
"""

POLICY = {
    # bash, ssh, mpirun, commsweep compare: root's files only, nothing setuid.
    "mpimaster": {"add": set()},
    # IPC_LOCK: registered (pinned) memory for RDMA; SETUID, SETGID, SYS_CHROOT: sshd's
    # privilege separation. tests/e2e runs the entrypoints with exactly these (setpriv).
    "mpiworker": {"add": {"IPC_LOCK", "SETUID", "SETGID", "SYS_CHROOT"}},
}
# Never, whatever a mode wants: each of these is a way out of the container.
FORBIDDEN_CAPS = {"SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE", "SYS_RAWIO", "NET_ADMIN", "SYS_RESOURCE",
                  "DAC_READ_SEARCH", "BPF", "PERFMON", "ALL"}
HOST_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")
# The one seccomp profile allowed. Unconfined lifts every syscall filter. Localhost is a file
# on each node, outside this repository: nothing here can review or test it (tests/e2e and
# scripts/gpu-seccomp.sh run under RuntimeDefault's filter), and a node without the file fails
# the pod at start. So RuntimeDefault only.
SECCOMP_TYPE = "RuntimeDefault"


def check_pod_security(task, pod, add=None):
    """One pod template's spec: the pod's fields and its containers' securityContext. `add` is
    the capabilities the task's container may add (POLICY's by default)."""
    problems = []
    fail = lambda message: problems.append("security: %s %s" % (task, message))
    for field in HOST_NAMESPACES:
        if pod.get(field):
            fail("sets %s: true (no mode here needs the node's namespaces)" % field)
    if pod.get("automountServiceAccountToken") is not False:
        fail("mounts a service account token (automountServiceAccountToken is %r, expected false: "
             "the pods never call the API)" % pod.get("automountServiceAccountToken"))
    for v in pod.get("volumes", []):
        if "hostPath" in v:
            fail("mounts hostPath %r (volume %s)" % (v["hostPath"].get("path"), v.get("name")))
    want = POLICY.get(task, {}).get("add", set()) if add is None else add
    for c in pod.get("initContainers", []) + pod.get("containers", []):
        problems.extend(check_container(task, c, want))
    problems.extend(check_seccomp(task, pod))
    return problems


def seccomp_profile(pod, container):
    """The profile the container runs under: its own securityContext's, else the pod's."""
    own = (container.get("securityContext") or {}).get("seccompProfile")
    return own if own is not None else (pod.get("securityContext") or {}).get("seccompProfile")


def check_seccomp(task, pod):
    problems = []
    for c in pod.get("initContainers", []) + pod.get("containers", []):
        profile = seccomp_profile(pod, c) or {}
        if profile.get("type") != SECCOMP_TYPE:
            problems.append("security: %s container %s runs with seccompProfile %s, expected type %s "
                            "(set on the pod's securityContext; Unconfined and Localhost are not allowed)"
                            % (task, c.get("name"), profile or "unset (the kubelet's default: Unconfined)",
                               SECCOMP_TYPE))
    return problems


def check_container(task, c, want_add):
    problems = []
    fail = lambda message: problems.append("security: %s container %s %s" % (task, c.get("name"), message))
    sc = c.get("securityContext") or {}
    if sc.get("privileged"):
        fail("is privileged (the device plugins hand the pod its devices; no mode needs it)")
    if sc.get("allowPrivilegeEscalation") is not False:
        fail("may gain privileges (allowPrivilegeEscalation is %r, expected false)"
             % sc.get("allowPrivilegeEscalation"))
    caps = sc.get("capabilities") or {}
    if caps.get("drop") != ["ALL"]:
        fail("drops %r, expected [ALL] (then adds only what it needs)" % caps.get("drop"))
    added = set(caps.get("add") or [])
    bad = sorted(added & FORBIDDEN_CAPS)
    if bad:
        fail("adds forbidden capabilities %s" % bad)
    if added != want_add:
        fail("adds capabilities %s, the policy is %s" % (sorted(added), sorted(want_add)))
    return problems


def check_job_plugins(spec):
    problems = []
    plugins = spec.get("plugins", {})
    if "ssh" not in plugins or "svc" not in plugins:
        problems.append("security: plugins ssh and svc are both needed (have %s)" % sorted(plugins))
    for arg in plugins.get("svc") or []:
        if arg.split("=")[0] == "--disable-network-policy" and arg.split("=")[-1] != "false":
            problems.append("security: the svc plugin's NetworkPolicy must stay on (svc %s)" % plugins["svc"])
    for name, args in plugins.items():
        if any("PRIVATE KEY" in str(a) for a in args or []):
            problems.append("security: plugin %s carries a private key in its arguments" % name)
    return problems


# The labels that name a job's pods (and only them): what its NetworkPolicy selects and admits.
JOB_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/instance")


def check_job_network_policy(policy, job):
    """An MPIJob's own NetworkPolicy (mpi-operator makes none; Volcano's svc plugin makes this one
    for a Volcano Job): it selects the job's pods and admits only the job's pods."""
    labels = job.get("metadata", {}).get("labels", {})
    want = {k: labels.get(k) for k in JOB_LABELS}
    spec = policy.get("spec") or {}
    name = policy.get("metadata", {}).get("name")
    problems = []
    fail = lambda message: problems.append("security: NetworkPolicy %s %s" % (name, message))
    if (spec.get("podSelector") or {}).get("matchLabels") != want:
        fail("selects %r, not the job's pods %r" % ((spec.get("podSelector") or {}).get("matchLabels"), want))
    if "Ingress" not in (spec.get("policyTypes") or []):
        fail("does not restrict ingress (policyTypes %r)" % spec.get("policyTypes"))
    rules = spec.get("ingress") or []
    peers = [peer for rule in rules for peer in rule.get("from") or [{}]]
    if len(rules) != 1 or peers != [{"podSelector": {"matchLabels": want}}]:
        fail("admits %r: only the job's own pods (podSelector %r, no namespaceSelector or ipBlock) may "
             "reach the workers' sshd" % (rules, want))
    return problems


def check_rendering(docs):
    """A whole rendering: no NetworkPolicy of ours for a Volcano Job (the svc plugin's, admitting
    only the job's own pods, is the one), for an MPIJob exactly that policy of its own; no Secret
    (ssh keys come only from the plugin's <job>-ssh, or mpi-operator's)."""
    problems = []
    mpijobs = [d for d in docs if d.get("kind") == "MPIJob"]
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"]
    if mpijobs and len(policies) != 1:
        problems.append("security: an MPIJob's rendering needs one NetworkPolicy admitting only its "
                        "pods (mpi-operator makes none), has %d" % len(policies))
    for d in docs:
        kind, name = d.get("kind"), d.get("metadata", {}).get("name")
        if kind == "NetworkPolicy" and mpijobs:
            problems.extend(check_job_network_policy(d, mpijobs[0]))
        elif kind == "NetworkPolicy":
            problems.append("security: the rendering carries NetworkPolicy %s; the svc plugin's "
                            "is the job's policy" % name)
        if kind == "Secret":
            problems.append("security: the rendering carries Secret %s; ssh keys come only from "
                            "the ssh plugin's <job>-ssh Secret" % name)
    return problems


def check_runner(pod):
    """The older-Volcano nightly runner (a batch/v1 CronJob's pod): it calls the API, so it has
    its token, but as a non-root user without any capability."""
    problems = []
    for field in HOST_NAMESPACES:
        if pod.get(field):
            problems.append("security: the nightly runner sets %s" % field)
    for c in pod.get("containers", []):
        sc = c.get("securityContext") or {}
        if sc.get("runAsNonRoot") is not True:
            problems.append("security: the nightly runner %s may run as root" % c.get("name"))
        problems.extend(check_container("nightly runner", c, set()))
    problems.extend(check_seccomp("nightly runner", pod))
    return problems


def effective_capabilities(container):
    """The container's capability names as the runtime grants them (drop ALL, then add)."""
    caps = (container.get("securityContext") or {}).get("capabilities") or {}
    return sorted(set(caps.get("add") or [])) if caps.get("drop") == ["ALL"] else None
