#include "seccomp_filter.hpp"

#include <sys/syscall.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <system_error>

#include "runtime_default_profile.hpp"

namespace seccomp_launcher {
namespace {

// x86_64's syscall numbers end below this (arch/x86/entry/syscalls/syscall_64.tbl: < 512).
constexpr int kMaxSyscallNr = 1024;

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

// libseccomp answers -errno; a failure names the call and the syscall it was about.
void check(int rc, const std::string& call) {
  if (rc < 0) throw std::system_error(-rc, std::generic_category(), call);
}

void allow(scmp_filter_ctx ctx, long nr, const std::string& name, std::vector<scmp_arg_cmp> args = {}) {
  check(seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, static_cast<int>(nr),
                               static_cast<unsigned>(args.size()), args.data()),
        "seccomp_rule_add(ALLOW, " + name + ")");
}

// A syscall the profile judges by its first argument: allowed when the argument passes. One
// comparison per rule (libseccomp's limit per argument), so a set is several ALLOW rules.
void allow_when(scmp_filter_ctx ctx, const Denial& d) {
  switch (d.when) {
    case Denial::When::kAlways:
      if (d.error != EPERM) {  // EPERM is the default action; another errno needs its rule
        check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(static_cast<uint32_t>(d.error)), static_cast<int>(d.nr), 0),
              "seccomp_rule_add(ERRNO, " + d.syscall + ")");
      }
      return;
    case Denial::When::kCloneNamespaceFlags:  // the flags are clone's first argument on x86_64
      allow(ctx, d.nr, d.syscall, {SCMP_A0(SCMP_CMP_MASKED_EQ, kCloneNamespaceFlags, 0)});
      return;
    case Denial::When::kSocketFamily:  // compared as 64-bit values, as the profile does
      static_assert(kAfVsock == kAfAlg + 2, "the families between and around the two refused ones");
      allow(ctx, d.nr, d.syscall, {SCMP_A0(SCMP_CMP_LT, kAfAlg)});
      allow(ctx, d.nr, d.syscall, {SCMP_A0(SCMP_CMP_EQ, kAfAlg + 1)});
      allow(ctx, d.nr, d.syscall, {SCMP_A0(SCMP_CMP_GT, kAfVsock)});
      return;
    case Denial::When::kPersonality:
      for (unsigned p : allowed_personalities()) allow(ctx, d.nr, d.syscall, {SCMP_A0(SCMP_CMP_EQ, p)});
      return;
  }
}

}  // namespace

std::vector<Denial> denials_for(const std::set<std::string>& capabilities) {
  std::vector<Denial> out;
  for (const auto& s : never_allowed()) out.push_back({s.name, s.nr, EPERM, Denial::When::kAlways, "always"});
  add_capability_denials(capabilities, out);
  add_argument_denials(capabilities, out);
  return out;
}

Filter build_filter(const std::set<std::string>& capabilities) {
  // Everything not allowed below is EPERM, as in the profile; so are other ABIs (i386, x32),
  // whose numbers the profile's x86_64 facts do not describe.
  Filter filter(seccomp_init(SCMP_ACT_ERRNO(EPERM)));
  if (!filter) throw std::system_error(ENOMEM, std::generic_category(), "seccomp_init");
  scmp_filter_ctx ctx = filter.get();
  check(seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM)), "seccomp_attr_set(ACT_BADARCH)");
  std::map<long, const Denial*> denied;
  const std::vector<Denial> denials = denials_for(capabilities);
  for (const Denial& d : denials) denied[d.nr] = &d;
  // Every syscall number libseccomp names on x86_64 (the table ends below 1024).
  for (int nr = 0; nr < kMaxSyscallNr; ++nr) {
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
    if (name == nullptr) continue;
    const std::string syscall(name);
    std::free(name);
    const auto it = denied.find(nr);
    if (it == denied.end()) {
      allow(ctx, nr, syscall);
    } else {
      allow_when(ctx, *it->second);
    }
  }
  return filter;
}

void install_filter(const Filter& filter) {
  // Without CAP_SYS_ADMIN the kernel takes a filter only from a process that can no longer
  // gain privileges (libseccomp sets PR_SET_NO_NEW_PRIVS: SCMP_FLTATR_CTL_NNP is on by default);
  // a container under allowPrivilegeEscalation: false has this set anyway.
  check(seccomp_load(filter.get()), "seccomp_load");
}

}  // namespace seccomp_launcher
