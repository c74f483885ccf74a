#include "seccomp_filter.hpp"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <map>
#include <system_error>

#include "bpf_program.hpp"
#include "runtime_default_profile.hpp"

namespace seccomp_launcher {
namespace {

// Syscall numbers with the x32 ABI's bit set are another ABI's (x32 shares x86_64's arch token).
constexpr uint32_t kX32SyscallBit = 0x40000000u;
constexpr uint32_t kNrOffset = offsetof(struct seccomp_data, nr);
constexpr uint32_t kArchOffset = offsetof(struct seccomp_data, arch);
// Arguments are 64-bit; x86_64 is little-endian, so the low word comes first.
constexpr uint32_t kArg0Low = offsetof(struct seccomp_data, args);
constexpr uint32_t kArg0High = kArg0Low + 4;

uint32_t errno_action(int error) { return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(error) & SECCOMP_RET_DATA); }

std::string hex(unsigned value) {
  char text[16];
  snprintf(text, sizeof text, "0x%x", value);
  return text;
}

void add_capability_denials(const std::set<std::string>& capabilities, std::vector<Denial>& out) {
  // A syscall listed under several capabilities (bpf: SYS_ADMIN or BPF) is allowed by any.
  std::map<long, std::vector<const GatedSyscall*>> by_nr;
  for (const auto& g : allowed_with_capability()) by_nr[g.nr].push_back(&g);
  for (const auto& [nr, entries] : by_nr) {
    std::string needs;
    bool held = false;
    for (const GatedSyscall* g : entries) {
      held = held || capabilities.count(g->capability) > 0;
      needs += (needs.empty() ? "without CAP_" : " or CAP_") + std::string(g->capability);
    }
    if (!held) out.push_back({entries[0]->name, nr, entries[0]->errno_denied, Denial::When::kAlways, needs});
  }
}

void add_argument_denials(const std::set<std::string>& capabilities, std::vector<Denial>& out) {
  if (capabilities.count("SYS_ADMIN") == 0) {
    out.push_back({"clone", __NR_clone, EPERM, Denial::When::kCloneNamespaceFlags,
                   "flags & " + hex(kCloneNamespaceFlags) + " (CLONE_NEW*) without CAP_SYS_ADMIN"});
  }
  out.push_back({"socket", __NR_socket, EPERM, Denial::When::kSocketFamily,
                 "family " + std::to_string(kAfAlg) + " (AF_ALG) or " + std::to_string(kAfVsock) +
                     " (AF_VSOCK)"});
  std::string allowed;
  for (unsigned p : allowed_personalities()) allowed += (allowed.empty() ? "" : ", ") + hex(p);
  out.push_back({"personality", __NR_personality, EPERM, Denial::When::kPersonality,
                 "persona not one of " + allowed});
}

// Each block below tests the syscall number (in A) and, when it matches, returns; a block that
// loads an argument does so only after its number matched, so A holds the number for the next.
void emit_denial(BpfProgram& bpf, const Denial& d) {
  const auto skip = bpf.new_label(), deny = bpf.new_label(), allow = bpf.new_label();
  bpf.jump_if_equal(static_cast<uint32_t>(d.nr), BpfProgram::kNext, skip);
  switch (d.when) {
    case Denial::When::kAlways:
      bpf.ret(errno_action(d.error));
      bpf.bind(skip);
      return;
    case Denial::When::kCloneNamespaceFlags:  // the flags are clone's first argument on x86_64
      bpf.load(kArg0Low);
      bpf.jump_if_any_bit(kCloneNamespaceFlags, deny, allow);
      break;
    case Denial::When::kSocketFamily:  // compared as 64-bit values, as the profile does
      bpf.load(kArg0High);
      bpf.jump_if_equal(0, BpfProgram::kNext, allow);
      bpf.load(kArg0Low);
      bpf.jump_if_equal(kAfAlg, deny, BpfProgram::kNext);
      bpf.jump_if_equal(kAfVsock, deny, allow);
      break;
    case Denial::When::kPersonality:
      bpf.load(kArg0High);
      bpf.jump_if_equal(0, BpfProgram::kNext, deny);
      bpf.load(kArg0Low);
      for (unsigned p : allowed_personalities()) bpf.jump_if_equal(p, allow, BpfProgram::kNext);
      break;
  }
  bpf.bind(deny);
  bpf.ret(errno_action(d.error));
  bpf.bind(allow);
  bpf.ret(SECCOMP_RET_ALLOW);
  bpf.bind(skip);
}

}  // namespace

std::vector<Denial> denials_for(const std::set<std::string>& capabilities) {
  std::vector<Denial> out;
  for (const auto& s : never_allowed()) out.push_back({s.name, s.nr, EPERM, Denial::When::kAlways, "always"});
  add_capability_denials(capabilities, out);
  add_argument_denials(capabilities, out);
  return out;
}

std::vector<sock_filter> build_filter(const std::set<std::string>& capabilities) {
  BpfProgram bpf;
  // The profile's x86_64 numbers mean nothing under another ABI (i386, x32): refuse those
  // outright. (The real profile maps them; nothing in a commsweep pod uses them.)
  const auto native = bpf.new_label(), not_x32 = bpf.new_label();
  bpf.load(kArchOffset);
  bpf.jump_if_equal(AUDIT_ARCH_X86_64, native, BpfProgram::kNext);
  bpf.ret(errno_action(EPERM));
  bpf.bind(native);
  bpf.load(kNrOffset);
  bpf.jump_if_any_bit(kX32SyscallBit, BpfProgram::kNext, not_x32);
  bpf.ret(errno_action(EPERM));
  bpf.bind(not_x32);
  for (const Denial& d : denials_for(capabilities)) emit_denial(bpf, d);
  bpf.ret(SECCOMP_RET_ALLOW);
  return bpf.assemble();
}

void install_filter(const std::vector<sock_filter>& program) {
  // Without CAP_SYS_ADMIN the kernel takes a filter only from a process that can no longer
  // gain privileges; a container under allowPrivilegeEscalation: false has this set anyway.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    throw std::system_error(errno, std::generic_category(), "prctl(PR_SET_NO_NEW_PRIVS)");
  }
  sock_fprog fprog{static_cast<unsigned short>(program.size()), const_cast<sock_filter*>(program.data())};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
    throw std::system_error(errno, std::generic_category(), "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)");
  }
}

}  // namespace seccomp_launcher
