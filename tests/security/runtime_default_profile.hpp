// The container runtime's default seccomp profile (Kubernetes `seccompProfile: RuntimeDefault`)
// as facts about x86_64 syscalls: which ones it never allows, which only with a capability,
// and the few it judges by argument. seccomp_filter.cpp turns them into a libseccomp filter.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace seccomp_launcher {

// A syscall the profile denies unless the container holds one of its capabilities.
struct GatedSyscall {
  const char* name;
  long nr;
  const char* capability;  // without the CAP_ prefix, e.g. "SYS_NICE"
  int errno_denied;        // the answer without it (EPERM; clone3: ENOSYS)
};

struct NamedSyscall {
  const char* name;
  long nr;
};

// Syscalls the profile never allows, whatever the capabilities.
const std::vector<NamedSyscall>& never_allowed();
// Syscalls allowed only with a capability (one entry per capability that allows it).
const std::vector<GatedSyscall>& allowed_with_capability();
// Every Linux capability name (linux/capability.h), without the CAP_ prefix.
const std::vector<std::string>& capability_names();

// CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
// CLONE_NEWNET: clone with any of these needs CAP_SYS_ADMIN under the profile.
constexpr unsigned kCloneNamespaceFlags = 0x7E020000u;
// socket() address families the profile refuses: AF_ALG (kernel crypto), AF_VSOCK.
constexpr unsigned kAfAlg = 38;
constexpr unsigned kAfVsock = 40;
// personality() values the profile allows: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32,
// and the query 0xffffffff.
const std::vector<unsigned>& allowed_personalities();

// A capability name as a user writes it ("ipc_lock", "CAP_IPC_LOCK") in the canonical form
// ("IPC_LOCK"); empty when it names no capability.
std::string canonical_capability(const std::string& written);

}  // namespace seccomp_launcher
