// The runtime's default profile (runtime_default_profile.hpp) for a container holding given
// capabilities, as a libseccomp filter, and its installation.
#pragma once

#include <seccomp.h>

#include <cstdint>
#include <memory>
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

// A libseccomp filter context, released with it.
struct FilterRelease {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Filter = std::unique_ptr<void, FilterRelease>;

// The filter, written as the profile is: an allow list with EPERM for everything else (other
// architectures and x32 syscalls included): every x86_64 syscall libseccomp knows but the
// denied ones, clone without namespace flags, socket but AF_ALG and AF_VSOCK, personality with
// the profile's values; clone3 without CAP_SYS_ADMIN answers ENOSYS, as the profile says.
// Throws std::system_error naming the libseccomp call that failed.
Filter build_filter(const std::set<std::string>& capabilities);

// PR_SET_NO_NEW_PRIVS, then the filter for this thread and every process it execs or forks
// (seccomp_load). Throws std::system_error naming the call that failed.
void install_filter(const Filter& filter);

}  // namespace seccomp_launcher
