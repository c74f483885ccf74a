// The runtime's default profile (runtime_default_profile.hpp) for a container holding given
// capabilities, as a seccomp-BPF program written by hand (no libseccomp), and its installation.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace seccomp_launcher {

// One syscall the filter answers with an errno, and when (the profile judges three by an argument).
struct Denial {
  enum class When { kAlways, kCloneNamespaceFlags, kSocketFamily, kPersonality };
  std::string syscall;
  long nr;
  int error;  // EPERM or ENOSYS
  When when;
  std::string why;  // for --list: the capability that would allow it, or the argument rule
};

// What the profile denies a container holding `capabilities` (canonical names, no CAP_).
std::vector<Denial> denials_for(const std::set<std::string>& capabilities);

// The BPF program: other architectures and x32 syscalls EPERM, then each denial, the
// argument checks (clone, socket, personality), and SECCOMP_RET_ALLOW for everything else.
std::vector<sock_filter> build_filter(const std::set<std::string>& capabilities);

// PR_SET_NO_NEW_PRIVS, then the filter for this thread and every process it execs or forks.
// Throws std::system_error naming the call that failed.
void install_filter(const std::vector<sock_filter>& program);

}  // namespace seccomp_launcher
