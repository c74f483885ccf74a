// Which NCCL library (the one loaded at run time) each of commsweep's paths accepts, given the
// NCCL headers it was built against: one table of rules, no NCCL header, so that every pair
// of versions can be decided (and tested) on a machine without NCCL.
//
// The rules come from NCCL's own sources and release notes (2.28 to 2.32):
//  - the host API (nccl.h) is backward compatible: a library as new as the headers or newer
//    runs the build; an older one may lack symbols or read structures of a newer layout;
//  - the device API (nccl_device.h, the lsa kernels) was experimental in 2.28: its structures
//    have no version field and changed between 2.28 releases, so a 2.28 build needs its exact
//    library; from 2.29.2 ncclDevCommRequirements carries size, magic and version
//    (NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER), and a newer library fills ncclDevComm in the
//    build's layout for the releases it keeps (kDeviceApiReleasesKept), never an older one;
//  - ncclDevResourceRequirements (which ncclLLA2ACreateRequirement fills for the counts' LL
//    all-to-all) has no version field at all: its layout must agree.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commsweep::nccl_policy {

// NCCL_VERSION_CODE / ncclGetVersion() form: 22809 is 2.28.9.
constexpr int version(int major, int minor, int patch) { return major * 10000 + minor * 100 + patch; }
// "2.28.9"; 0 or less: "unknown".
std::string version_text(int code);

struct Decision;
struct Versions;

// A path commsweep's NCCL calls take, which the policy decides for: one file each under
// nccl_policy/paths/ (<name>.cpp defining `const Path& <name>_path()`), the table generated from
// the files present. The rule tables below decide; a path names the one it follows.
struct Path {
  std::string_view name;  // "host_collectives", "alltoallv_ep", "lsa_ep", "ll_all_to_all_counts"
  int order;              // its place in decide_all() and the preamble
  Decision (*decide)(std::string_view name, const Versions& v);
  // A path that rides on another's resources (the counts' LL all-to-all on the lsa device
  // communicator): what its refusal says before the other's reason where another rank refused
  // that one. Empty for a path of its own.
  std::string_view needs = {};
};

// Every path, in `order`; a path by name (nullptr when there is none).
const std::vector<const Path*>& paths();
const Path* find_path(std::string_view name);

enum class Verdict { Accepted, AcceptedWithSetting, Refused };
std::string_view name_of(Verdict verdict);  // "accepted", "accepted_with_setting", "refused"

// A setting the pair needs: one commsweep makes itself, or one it demands of the user (the
// run is refused while it is not met).
struct Setting {
  enum class How { SetByCommsweep, Demanded };
  std::string name;   // "useRuntimeVersion", "NCCL_DEV_API_JIT"
  std::string value;  // "false", "0 or unset"
  How how = How::SetByCommsweep;
  std::string why;
};
std::string_view name_of(Setting::How how);  // "set", "demanded"

struct Decision {
  std::string path;  // its Path's name
  Verdict verdict = Verdict::Refused;
  // Accepted: why the pair works. Refused: why not, then the remedy (which library to point
  // LD_LIBRARY_PATH at, or which NCCL_ROOT to rebuild with).
  std::string message;
  std::vector<Setting> settings;
  bool refused() const { return verdict == Verdict::Refused; }
};

struct Versions {
  int headers = 0;                // NCCL_VERSION_CODE of the build
  int library = 0;                // ncclGetVersion() at run time; 0 unknown
  bool device_api_built = false;  // the lsa kernels were compiled (nccl_device.h was found)
  std::optional<std::string> dev_api_jit;  // NCCL_DEV_API_JIT from the environment, when set
};

// The rule tables, each named for what the paths that follow it call:
//   host_api              nccl.h calls only: a library as new as the headers or newer
//   device_api            nccl_device.h kernels, a device communicator and symmetric windows,
//                         with the counts' LL all-to-all requirement they always make
//   ll_all_to_all_counts  ncclLLA2ACreateRequirement's ncclDevResourceRequirements (no version)
Decision host_api(std::string_view path, const Versions& v);
Decision device_api(std::string_view path, const Versions& v);
Decision ll_all_to_all_counts(std::string_view path, const Versions& v);

// The decision for the path of that name (a logic error for a name no file defines).
Decision decide(std::string_view path, const Versions& v);
// Every path, in `order`.
std::vector<Decision> decide_all(const Versions& v);

// "lsa_ep: accepted_with_setting (useRuntimeVersion=false set; NCCL_DEV_API_JIT=0 or unset demanded)"
std::string summary(const Decision& d);

}  // namespace commsweep::nccl_policy
