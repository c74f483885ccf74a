// The facts of the runtime's default seccomp profile for x86_64. Source: moby/profiles,
// seccomp/default.json (Docker's default profile, which containerd's RuntimeDefault mirrors;
// Kubernetes' `seccompProfile: {type: RuntimeDefault}` asks the runtime for it). That profile is
// an allow list with ERRNO(EPERM) as its default action; the tables here are its complement on
// x86_64: what it never allows, and what it allows only to a container holding a capability.
// ptrace, process_vm_readv and process_vm_writev are allowed there on kernels >= 4.8, so they
// are allowed here. A syscall newer than the profile (named nowhere in it) is EPERM under the
// real profile but allowed here: this launcher answers "does commsweep work under the profile",
// and commsweep calls nothing that new.
// Each entry is guarded by #ifdef so that headers lacking a syscall still compile.
#include "runtime_default_profile.hpp"

#include <cerrno>
#include <cctype>

#include <sys/syscall.h>

namespace seccomp_launcher {

const std::vector<NamedSyscall>& never_allowed() {
  static const std::vector<NamedSyscall> table = {
#ifdef __NR__sysctl
      {"_sysctl", __NR__sysctl},
#endif
#ifdef __NR_add_key
      {"add_key", __NR_add_key},
#endif
#ifdef __NR_afs_syscall
      {"afs_syscall", __NR_afs_syscall},
#endif
#ifdef __NR_create_module
      {"create_module", __NR_create_module},
#endif
#ifdef __NR_get_kernel_syms
      {"get_kernel_syms", __NR_get_kernel_syms},
#endif
#ifdef __NR_getpmsg
      {"getpmsg", __NR_getpmsg},
#endif
#ifdef __NR_io_uring_enter
      {"io_uring_enter", __NR_io_uring_enter},
#endif
#ifdef __NR_io_uring_register
      {"io_uring_register", __NR_io_uring_register},
#endif
#ifdef __NR_io_uring_setup
      {"io_uring_setup", __NR_io_uring_setup},
#endif
#ifdef __NR_kexec_file_load
      {"kexec_file_load", __NR_kexec_file_load},
#endif
#ifdef __NR_kexec_load
      {"kexec_load", __NR_kexec_load},
#endif
#ifdef __NR_keyctl
      {"keyctl", __NR_keyctl},
#endif
#ifdef __NR_migrate_pages
      {"migrate_pages", __NR_migrate_pages},
#endif
#ifdef __NR_move_pages
      {"move_pages", __NR_move_pages},
#endif
#ifdef __NR_nfsservctl
      {"nfsservctl", __NR_nfsservctl},
#endif
#ifdef __NR_pivot_root
      {"pivot_root", __NR_pivot_root},
#endif
#ifdef __NR_putpmsg
      {"putpmsg", __NR_putpmsg},
#endif
#ifdef __NR_query_module
      {"query_module", __NR_query_module},
#endif
#ifdef __NR_request_key
      {"request_key", __NR_request_key},
#endif
#ifdef __NR_security
      {"security", __NR_security},
#endif
#ifdef __NR_swapoff
      {"swapoff", __NR_swapoff},
#endif
#ifdef __NR_swapon
      {"swapon", __NR_swapon},
#endif
#ifdef __NR_sysfs
      {"sysfs", __NR_sysfs},
#endif
#ifdef __NR_tuxcall
      {"tuxcall", __NR_tuxcall},
#endif
#ifdef __NR_uselib
      {"uselib", __NR_uselib},
#endif
#ifdef __NR_userfaultfd
      {"userfaultfd", __NR_userfaultfd},
#endif
#ifdef __NR_ustat
      {"ustat", __NR_ustat},
#endif
#ifdef __NR_vserver
      {"vserver", __NR_vserver},
#endif
  };
  return table;
}

const std::vector<GatedSyscall>& allowed_with_capability() {
  static const std::vector<GatedSyscall> table = {
      // CAP_SYS_ADMIN
#ifdef __NR_bpf
      {"bpf", __NR_bpf, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_clone3
      {"clone3", __NR_clone3, "SYS_ADMIN", ENOSYS},
#endif
#ifdef __NR_fanotify_init
      {"fanotify_init", __NR_fanotify_init, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_fsconfig
      {"fsconfig", __NR_fsconfig, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_fsmount
      {"fsmount", __NR_fsmount, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_fsopen
      {"fsopen", __NR_fsopen, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_fspick
      {"fspick", __NR_fspick, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_lookup_dcookie
      {"lookup_dcookie", __NR_lookup_dcookie, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_mount
      {"mount", __NR_mount, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_mount_setattr
      {"mount_setattr", __NR_mount_setattr, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_move_mount
      {"move_mount", __NR_move_mount, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_open_tree
      {"open_tree", __NR_open_tree, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_perf_event_open
      {"perf_event_open", __NR_perf_event_open, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_quotactl
      {"quotactl", __NR_quotactl, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_quotactl_fd
      {"quotactl_fd", __NR_quotactl_fd, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_setdomainname
      {"setdomainname", __NR_setdomainname, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_sethostname
      {"sethostname", __NR_sethostname, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_setns
      {"setns", __NR_setns, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_syslog
      {"syslog", __NR_syslog, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_umount2
      {"umount2", __NR_umount2, "SYS_ADMIN", EPERM},
#endif
#ifdef __NR_unshare
      {"unshare", __NR_unshare, "SYS_ADMIN", EPERM},
#endif
      // CAP_SYS_BOOT
#ifdef __NR_reboot
      {"reboot", __NR_reboot, "SYS_BOOT", EPERM},
#endif
      // CAP_SYS_CHROOT
#ifdef __NR_chroot
      {"chroot", __NR_chroot, "SYS_CHROOT", EPERM},
#endif
      // CAP_SYS_MODULE
#ifdef __NR_delete_module
      {"delete_module", __NR_delete_module, "SYS_MODULE", EPERM},
#endif
#ifdef __NR_init_module
      {"init_module", __NR_init_module, "SYS_MODULE", EPERM},
#endif
#ifdef __NR_finit_module
      {"finit_module", __NR_finit_module, "SYS_MODULE", EPERM},
#endif
      // CAP_SYS_PACCT
#ifdef __NR_acct
      {"acct", __NR_acct, "SYS_PACCT", EPERM},
#endif
      // CAP_SYS_PTRACE
#ifdef __NR_kcmp
      {"kcmp", __NR_kcmp, "SYS_PTRACE", EPERM},
#endif
#ifdef __NR_pidfd_getfd
      {"pidfd_getfd", __NR_pidfd_getfd, "SYS_PTRACE", EPERM},
#endif
#ifdef __NR_process_madvise
      {"process_madvise", __NR_process_madvise, "SYS_PTRACE", EPERM},
#endif
      // CAP_SYS_RAWIO
#ifdef __NR_iopl
      {"iopl", __NR_iopl, "SYS_RAWIO", EPERM},
#endif
#ifdef __NR_ioperm
      {"ioperm", __NR_ioperm, "SYS_RAWIO", EPERM},
#endif
      // CAP_SYS_TIME
#ifdef __NR_settimeofday
      {"settimeofday", __NR_settimeofday, "SYS_TIME", EPERM},
#endif
#ifdef __NR_clock_settime
      {"clock_settime", __NR_clock_settime, "SYS_TIME", EPERM},
#endif
      // CAP_SYS_TTY_CONFIG
#ifdef __NR_vhangup
      {"vhangup", __NR_vhangup, "SYS_TTY_CONFIG", EPERM},
#endif
      // CAP_SYS_NICE
#ifdef __NR_get_mempolicy
      {"get_mempolicy", __NR_get_mempolicy, "SYS_NICE", EPERM},
#endif
#ifdef __NR_mbind
      {"mbind", __NR_mbind, "SYS_NICE", EPERM},
#endif
#ifdef __NR_set_mempolicy
      {"set_mempolicy", __NR_set_mempolicy, "SYS_NICE", EPERM},
#endif
#ifdef __NR_set_mempolicy_home_node
      {"set_mempolicy_home_node", __NR_set_mempolicy_home_node, "SYS_NICE", EPERM},
#endif
      // CAP_DAC_READ_SEARCH
#ifdef __NR_open_by_handle_at
      {"open_by_handle_at", __NR_open_by_handle_at, "DAC_READ_SEARCH", EPERM},
#endif
      // CAP_SYSLOG
#ifdef __NR_syslog
      {"syslog", __NR_syslog, "SYSLOG", EPERM},
#endif
      // CAP_BPF
#ifdef __NR_bpf
      {"bpf", __NR_bpf, "BPF", EPERM},
#endif
      // CAP_PERFMON
#ifdef __NR_perf_event_open
      {"perf_event_open", __NR_perf_event_open, "PERFMON", EPERM},
#endif
  };
  return table;
}

const std::vector<std::string>& capability_names() {
  // linux/capability.h, in number order (CAP_CHOWN is 0).
  static const std::vector<std::string> names = {
      "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID",
      "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN",
      "NET_RAW", "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE",
      "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME",
      "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
      "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ",
      "PERFMON", "BPF", "CHECKPOINT_RESTORE"};
  return names;
}

const std::vector<unsigned>& allowed_personalities() {
  static const std::vector<unsigned> values = {0x0, 0x8, 0x20000, 0x20008, 0xffffffffu};
  return values;
}

std::string canonical_capability(const std::string& written) {
  std::string name;
  for (char ch : written) name += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  // Kubernetes writes IPC_LOCK, capsh and the kernel's headers CAP_IPC_LOCK: take both.
  if (name.rfind("CAP_", 0) == 0) name.erase(0, 4);
  for (const auto& known : capability_names()) {
    if (known == name) return name;
  }
  return {};
}

}  // namespace seccomp_launcher
