// seccomp-runtime-default: runs a command under the seccomp filter that the container runtime's
// default profile (Kubernetes `seccompProfile: {type: RuntimeDefault}`) puts on a container
// holding the given capabilities, so that tests here can show that what a commsweep pod runs
// (sshd, mpirun, orted, the ranks) works under it. See --help.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "runtime_default_profile.hpp"
#include "seccomp_filter.hpp"

namespace {

using namespace seccomp_launcher;

constexpr int kExitUsage = 2;
constexpr int kExitCallFailed = 3;
constexpr int kExitCannotRun = 127;  // as a shell says for a command it cannot run

const char* const kHelp = R"(Usage: seccomp-runtime-default [--caps CAP,CAP,...] [--list] [--] COMMAND [ARGS...]

Runs COMMAND under the seccomp filter that the container runtime's default profile
(Kubernetes: securityContext.seccompProfile.type RuntimeDefault; Docker's default) puts on a
container holding exactly the capabilities CAP,... (x86_64 syscalls). It sets no_new_privs,
installs the filter and execs COMMAND; the filter stays on everything COMMAND forks or execs
(mpirun, orted, sshd and its sessions, the ranks). It does not change capabilities: give the
process the same ones (e.g. with setpriv), as the filter only decides which syscalls answer.

What the profile denies (the call answers EPERM unless said otherwise):
  always       keyctl, add_key, request_key, io_uring_*, userfaultfd, kexec_*, pivot_root,
               swapon/off, move_pages, migrate_pages and other obsolete or host-wide calls;
  CAP_SYS_ADMIN  mount, umount2, unshare, setns, clone with CLONE_NEW* flags, bpf,
               perf_event_open, fsopen and the new mount API; clone3 answers ENOSYS (libc then
               falls back to clone);
  CAP_SYS_NICE   mbind, set_mempolicy, get_mempolicy, set_mempolicy_home_node (NUMA policy);
  CAP_SYS_PTRACE kcmp, pidfd_getfd, process_madvise;
  CAP_SYS_CHROOT chroot; and others per capability (see --list);
  by argument  socket(AF_ALG or AF_VSOCK), personality() other than the usual personas.

Options:
  --caps LIST  the container's capabilities, comma-separated, with or without CAP_, any case
               (IPC_LOCK,SYS_CHROOT or cap_ipc_lock); empty or absent: none. May repeat.
  --list       print what the filter denies for these capabilities (syscall, number, errno,
               why) and exit 0 without running anything.
  -h, --help   this text.

Exit codes: COMMAND's own; 2 bad usage (the flag named); 3 the filter could not be installed
(kernel without seccomp filters); 127 COMMAND could not be run.

Example: a pod's worker with the capabilities volcano/base/job.yaml gives it:
  setpriv --bounding-set=-all,+ipc_lock,+setuid,+setgid,+sys_chroot --no-new-privs -- \
    seccomp-runtime-default --caps IPC_LOCK,SETUID,SETGID,SYS_CHROOT -- /usr/sbin/sshd -D
Source of the facts: moby/profiles seccomp/default.json (containerd's RuntimeDefault mirrors it).
)";

struct Options {
  std::set<std::string> capabilities;
  bool list = false;
  std::vector<char*> command;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "seccomp-runtime-default: %s (see --help)\n", message.c_str());
  std::exit(kExitUsage);
}

void add_capabilities(const std::string& list, std::set<std::string>& into) {
  size_t start = 0;
  while (start <= list.size() && !list.empty()) {
    const size_t comma = list.find(',', start);
    const std::string written = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string name = canonical_capability(written);
    if (name.empty()) usage_error("--caps: '" + written + "' is not a Linux capability name");
    into.insert(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

Options parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") { ++i; break; }
    if (arg == "-h" || arg == "--help") { std::fputs(kHelp, stdout); std::exit(0); }
    if (arg == "--list") { o.list = true; continue; }
    if (arg == "--caps") {
      if (i + 1 >= argc) usage_error("--caps needs a value (a comma-separated list; '' for none)");
      add_capabilities(argv[++i], o.capabilities);
      continue;
    }
    if (arg.rfind("--caps=", 0) == 0) { add_capabilities(arg.substr(7), o.capabilities); continue; }
    if (!arg.empty() && arg[0] == '-') usage_error("unknown flag '" + arg + "'");
    break;
  }
  for (; i < argc; ++i) o.command.push_back(argv[i]);
  if (o.command.empty() && !o.list) usage_error("no COMMAND to run");
  o.command.push_back(nullptr);
  return o;
}

void print_denials(const std::set<std::string>& capabilities) {
  std::printf("%-24s %4s  %-6s  %s\n", "syscall", "nr", "errno", "denied");
  for (const Denial& d : denials_for(capabilities)) {
    std::printf("%-24s %4ld  %-6s  %s\n", d.syscall.c_str(), d.nr, d.error == ENOSYS ? "ENOSYS" : "EPERM",
                d.why.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
#if !defined(__x86_64__)
  std::fprintf(stderr, "seccomp-runtime-default: this launcher reproduces the x86_64 profile only\n");
  return kExitCallFailed;
#endif
  const Options o = parse(argc, argv);
  if (o.list) {
    print_denials(o.capabilities);
    return 0;
  }
  try {
    install_filter(build_filter(o.capabilities));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seccomp-runtime-default: cannot install the filter: %s\n", e.what());
    return kExitCallFailed;
  }
  execvp(o.command[0], o.command.data());
  std::fprintf(stderr, "seccomp-runtime-default: cannot run '%s': %s\n", o.command[0], std::strerror(errno));
  return kExitCannotRun;
}
