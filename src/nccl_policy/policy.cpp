#include "nccl_policy/policy.hpp"

#include <stdexcept>

namespace commsweep::nccl_policy {
namespace {

// The device-API releases a newer NCCL library keeps (its devCommCompat table: the
// minVersion/maxVersion pairs of the 2.30.7, 2.31.2 and 2.32.3 libraries). last 0: up to the
// library itself. 2.29.4 was never released; 2.28 is not kept at all (no version field).
struct KeptRange {
  int first, last;
};
constexpr KeptRange kDeviceApiReleasesKept[] = {
    {version(2, 29, 2), version(2, 29, 3)},
    {version(2, 29, 5), version(2, 29, 7)},
    {version(2, 30, 0), version(2, 30, 7)},
    {version(2, 31, 0), 0},
};
// The newest library these rules were checked against.
constexpr int kNewestChecked = version(2, 32, 3);
// First release with NCCL_DEV_API_JIT (it tells the library that device code was JIT-compiled
// against the library's own headers).
constexpr int kDevApiJitSince = version(2, 30, 7);
// First release whose ncclDevCommRequirements has useRuntimeVersion.
constexpr int kUseRuntimeVersionSince = version(2, 31, 0);
// ncclDevResourceRequirements grew from 4 fields (2.28.3, 32 bytes) to 8 (56 bytes) in 2.28.7,
// and has kept that layout through 2.32.3.
constexpr int kWideResourceRequirementsSince = version(2, 28, 7);

int minor_release(int code) { return code / 100; }  // 22809 -> 228
bool is_2_28(int code) { return minor_release(code) == 228; }

std::string kept_ranges_text(int library) {
  std::string out;
  for (const KeptRange& k : kDeviceApiReleasesKept) {
    if (k.first > library) break;
    const int last = k.last == 0 || k.last > library ? library : k.last;
    out += (out.empty() ? "" : ", ") + version_text(k.first) + "-" + version_text(last);
  }
  return out;
}

bool kept(int headers, int library) {
  for (const KeptRange& k : kDeviceApiReleasesKept) {
    const int last = k.last == 0 || k.last > library ? library : k.last;
    if (headers >= k.first && headers <= last) return true;
  }
  return false;
}

std::string h(const Versions& v) { return version_text(v.headers); }
std::string r(const Versions& v) { return version_text(v.library); }

// The remedies, worded once.
std::string newer_library(const Versions& v) {
  return "point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL " + h(v) + " or newer";
}
std::string exact_library(const Versions& v) {
  return "point LD_LIBRARY_PATH at the folder of NCCL " + h(v) + "'s libnccl.so.2";
}
std::string rebuild(const Versions& v) {
  return "rebuild with NCCL_ROOT set to the NCCL " + r(v) + " you run with (scripts/build.sh)";
}

bool jit_declared(const Versions& v) { return v.dev_api_jit && !v.dev_api_jit->empty() && *v.dev_api_jit != "0"; }

// One row of a path's table: the first whose `applies` holds decides.
struct Rule {
  bool (*applies)(const Versions&);
  Verdict verdict;  // Accepted becomes AcceptedWithSetting where `settings` gives any
  std::string (*message)(const Versions&);
  std::vector<Setting> (*settings)(const Versions&) = nullptr;
};

template <std::size_t N>
Decision first_match(std::string_view path, const Rule (&rules)[N], const Versions& v) {
  for (const Rule& rule : rules) {
    if (!rule.applies(v)) continue;
    Decision d{std::string(path), rule.verdict, rule.message(v), {}};
    if (rule.settings != nullptr) d.settings = rule.settings(v);
    if (d.verdict == Verdict::Accepted && !d.settings.empty()) d.verdict = Verdict::AcceptedWithSetting;
    return d;
  }
  return {std::string(path), Verdict::Refused, "no rule decides NCCL " + h(v) + " headers with library " + r(v), {}};
}

// The collectives and the alltoallv EP: nccl.h calls only (ncclSend / ncclRecv in groups).
const Rule kHostRules[] = {
    {[](const Versions& v) { return v.library <= 0; }, Verdict::Refused,
     [](const Versions& v) {
       return "the NCCL library's version is unknown (ncclGetVersion failed): " + newer_library(v);
     }},
    {[](const Versions& v) { return v.library / 10000 != v.headers / 10000; }, Verdict::Refused,
     [](const Versions& v) {
       return "the NCCL library loaded at run time is " + r(v) + ", another major version than the headers (" +
              h(v) + "): " + newer_library(v);
     }},
    {[](const Versions& v) { return v.library < v.headers; }, Verdict::Refused,
     [](const Versions& v) {
       return "the NCCL library loaded at run time is " + r(v) + ", older than the headers commsweep was built with (" +
              h(v) + "), whose symbols and structures it may lack: " + newer_library(v) + ", or " + rebuild(v);
     }},
    {[](const Versions& v) { return v.library == v.headers; }, Verdict::Accepted,
     [](const Versions& v) { return "library " + r(v) + " is the headers' release"; }},
    {[](const Versions&) { return true; }, Verdict::Accepted,
     [](const Versions& v) {
       return "library " + r(v) + " is newer than the headers (" + h(v) + "): NCCL's host API is backward compatible";
     }},
};

std::vector<Setting> mixed_device_api_settings(const Versions& v) {
  std::vector<Setting> out;
  if (v.headers >= kUseRuntimeVersionSince) {
    out.push_back({"useRuntimeVersion", "false", Setting::How::SetByCommsweep,
                   "the kernels were compiled ahead of time against the " + h(v) +
                       " headers: NCCL must fill ncclDevComm in " + h(v) + "'s layout, not " + r(v) +
                       "'s (true is for device code JIT-compiled against the library's headers)"});
  }
  if (v.library >= kDevApiJitSince) {
    out.push_back({"NCCL_DEV_API_JIT", "0 or unset", Setting::How::Demanded,
                   "1 would tell NCCL " + r(v) + " that device code was JIT-compiled against its own headers"});
  }
  return out;
}

// The device API (the lsa EP, any kernels on nccl_device.h): the device communicator, symmetric
// windows and the kernels.
const Rule kDeviceApiRules[] = {
    {[](const Versions& v) { return !v.device_api_built && v.headers >= version(2, 28, 0); }, Verdict::Refused,
     [](const Versions& v) {
       return "this build's NCCL " + h(v) +
              " headers lack nccl_device.h (the device API): rebuild with NCCL_ROOT set to a full NCCL install "
              "of 2.29.2 or later (scripts/build.sh)";
     }},
    {[](const Versions& v) { return !v.device_api_built; }, Verdict::Refused,
     [](const Versions& v) {
       return "this build's NCCL headers (" + h(v) +
              ") have no device API (nccl_device.h, NCCL 2.28 or later): rebuild with NCCL_ROOT set to an NCCL "
              "of 2.29.2 or later (scripts/build.sh)";
     }},
    {[](const Versions& v) { return v.library <= 0; }, Verdict::Refused,
     [](const Versions& v) {
       return "the NCCL library's version is unknown (ncclGetVersion failed): " + exact_library(v);
     }},
    {[](const Versions& v) { return is_2_28(v.headers) && v.library == v.headers; }, Verdict::Accepted,
     [](const Versions& v) {
       return "library " + r(v) + " is the headers' release (the 2.28 device API, unversioned, runs on its own "
              "release only)";
     }},
    {[](const Versions& v) { return is_2_28(v.headers) && is_2_28(v.library); }, Verdict::Refused,
     [](const Versions& v) {
       return "built against NCCL " + h(v) + " headers but the library in use is " + r(v) +
              ": the 2.28 device API's structures (ncclDevComm, ncclDevCommRequirements, "
              "ncclDevResourceRequirements) carry no version and differ between 2.28 releases, so the library "
              "must be " + h(v) + " exactly: " + exact_library(v) + ", or " + rebuild(v);
     }},
    {[](const Versions& v) { return is_2_28(v.headers) && v.library > v.headers; }, Verdict::Refused,
     [](const Versions& v) {
       return "built against NCCL " + h(v) + " headers but the library in use is " + r(v) +
              ": from 2.29 NCCL takes only an ncclDevCommRequirements made by "
              "NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER (size, magic, version), which the 2.28 headers lack "
              "(ncclDevCommCreate would answer ncclInvalidUsage): " + rebuild(v) + ", or " + exact_library(v);
     }},
    {[](const Versions& v) { return v.library < v.headers; }, Verdict::Refused,
     [](const Versions& v) {
       return "built against NCCL " + h(v) + " headers but the library in use is " + r(v) +
              ", older: NCCL refuses device code built against newer headers than its own (\"NCCL library is "
              "too old\"): " + newer_library(v) + ", or " + rebuild(v);
     }},
    {[](const Versions& v) { return !kept(v.headers, v.library); }, Verdict::Refused,
     [](const Versions& v) {
       return "built against NCCL " + h(v) + " headers, but NCCL " + r(v) + " keeps the device API of releases " +
              kept_ranges_text(v.library) + " only: " + rebuild(v);
     }},
    {[](const Versions& v) { return v.library == v.headers; }, Verdict::Accepted,
     [](const Versions& v) { return "library " + r(v) + " is the headers' release"; }},
    {[](const Versions& v) { return v.library >= kDevApiJitSince && jit_declared(v); }, Verdict::Refused,
     [](const Versions& v) {
       return "NCCL_DEV_API_JIT=" + *v.dev_api_jit + " tells NCCL " + r(v) +
              " that device code was JIT-compiled against its own headers, but commsweep's lsa kernels were "
              "compiled ahead of time against " + h(v) + ": unset NCCL_DEV_API_JIT (or set it to 0), or " +
              rebuild(v);
     }},
    {[](const Versions&) { return true; }, Verdict::Accepted,
     [](const Versions& v) {
       std::string why = "built against NCCL " + h(v) + " headers, library " + r(v) + ": NCCL " + r(v) +
                         " keeps the device API of " + h(v) + " (ncclDevCommRequirements says version " + h(v) +
                         "; NCCL fills ncclDevComm in " + h(v) + "'s layout)";
       if (v.library > kNewestChecked) {
         why += "; " + r(v) + " is newer than the newest release this policy was checked against (" +
                version_text(kNewestChecked) + ")";
       }
       return why;
     },
     mixed_device_api_settings},
};

// What the counts' refusal says first where the lsa device communicator was refused.
constexpr const char* kCountsNeed = "the counts' LL all-to-all needs the lsa device communicator";

bool wide_resource_requirements(int code) { return code >= kWideResourceRequirementsSince; }

// The counts' LL all-to-all: ncclLLA2ACreateRequirement fills the caller's
// ncclDevResourceRequirements, which carries no version; it rides on the lsa device communicator.
const Rule kLlCountsRules[] = {
    {[](const Versions& v) {
       return v.device_api_built && v.library > 0 &&
              wide_resource_requirements(v.headers) != wide_resource_requirements(v.library);
     },
     Verdict::Refused,
     [](const Versions& v) {
       return "ncclLLA2ACreateRequirement fills an ncclDevResourceRequirements, which carries no version: NCCL "
              "2.28.3's has 4 fields (32 bytes), 2.28.7's and later 8 (56 bytes), and the headers (" + h(v) +
              ") and the library (" + r(v) + ") disagree: " + exact_library(v) + ", or " + rebuild(v);
     }},
    {[](const Versions& v) { return first_match("device_api", kDeviceApiRules, v).refused(); }, Verdict::Refused,
     [](const Versions& v) {
       return std::string(kCountsNeed) + ": " + first_match("device_api", kDeviceApiRules, v).message;
     }},
    {[](const Versions& v) { return v.library == v.headers; }, Verdict::Accepted,
     [](const Versions& v) { return "library " + r(v) + " is the headers' release"; }},
    {[](const Versions&) { return true; }, Verdict::Accepted,
     [](const Versions& v) {
       return "ncclDevResourceRequirements and ncclLLA2AHandle have one layout in " + h(v) + " and " + r(v) +
              " (unchanged from 2.28.7 through 2.32.3)";
     }},
};

}  // namespace

std::string version_text(int code) {
  if (code <= 0) return "unknown";
  return std::to_string(code / 10000) + "." + std::to_string((code % 10000) / 100) + "." + std::to_string(code % 100);
}

std::string_view name_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::Accepted: return "accepted";
    case Verdict::AcceptedWithSetting: return "accepted_with_setting";
    case Verdict::Refused: return "refused";
  }
  return "unknown";
}

std::string_view name_of(Setting::How how) { return how == Setting::How::Demanded ? "demanded" : "set"; }

Decision host_api(std::string_view path, const Versions& v) { return first_match(path, kHostRules, v); }

Decision device_api(std::string_view path, const Versions& v) {
  // The lsa exchange always makes the counts' LL all-to-all requirement: its layout must agree too.
  Decision d = first_match(path, kDeviceApiRules, v);
  if (!d.refused()) {
    const Decision counts = first_match(path, kLlCountsRules, v);
    if (counts.refused()) return {std::string(path), Verdict::Refused, counts.message, {}};
  }
  return d;
}

Decision ll_all_to_all_counts(std::string_view path, const Versions& v) { return first_match(path, kLlCountsRules, v); }

const Path* find_path(std::string_view name) {
  for (const Path* p : paths()) {
    if (p->name == name) return p;
  }
  return nullptr;
}

Decision decide(std::string_view path, const Versions& v) {
  const Path* p = find_path(path);
  if (p == nullptr) throw std::logic_error("no NCCL policy path \"" + std::string(path) + "\" (nccl_policy/paths/)");
  return p->decide(p->name, v);
}

std::vector<Decision> decide_all(const Versions& v) {
  std::vector<Decision> out;
  for (const Path* p : paths()) out.push_back(p->decide(p->name, v));
  return out;
}

std::string summary(const Decision& d) {
  std::string out = d.path + ": " + std::string(name_of(d.verdict));
  for (std::size_t i = 0; i < d.settings.size(); ++i) {
    const Setting& s = d.settings[i];
    out += (i == 0 ? " (" : "; ") + s.name + "=" + s.value + ", " + std::string(name_of(s.how));
  }
  if (!d.settings.empty()) out += ")";
  return out;
}

}  // namespace commsweep::nccl_policy
