// The NCCL and UCX settings that fit a pod's RDMA devices (`commsweep env`), and the check of
// a user's own settings against the devices the pod has.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fabric/pod_devices.hpp"
#include "fabric/sysfs.hpp"

namespace commsweep::fabric {

// NCCL_IB_HCA as NCCL reads it: '^' excludes, '=' matches names exactly, otherwise each entry
// is a prefix; an entry may name a port ("mlx5_0:1").
struct HcaList {
  bool exclude = false;
  bool exact = false;
  struct Entry {
    std::string device;
    int port = -1;  // -1: every port
  };
  std::vector<Entry> entries;
};
HcaList parse_hca_list(const std::string& value);
// The entries that name no device (and port) of the pod; empty for an exclude list.
std::vector<std::string> hca_entries_missing(const HcaList& list, const std::vector<PodHca>& hcas);

struct EnvExport {
  std::string name;
  std::string value;
  std::string why;  // a comment line above the export
};

struct EnvAdvice {
  std::vector<EnvExport> exports;
  std::vector<std::string> notes;     // comment lines
  std::vector<std::string> failures;  // a user setting that names what the pod lacks
};

// hcas: the pod's ports; socket_ifname: the pod's default interface ("" if unknown);
// netdevs: the interfaces that exist; user: the environment's current NCCL_*/UCX_* values.
EnvAdvice advise_environment(const PodMapping& pod, const std::string& socket_ifname,
                             const std::vector<std::string>& netdevs,
                             const std::map<std::string, std::string>& user);

// The interface of the default route (/proc/net/route), "" if none.
std::string default_route_interface(const SysfsRoot& root);
// POSIX shell single quotes: safe for eval whatever the value holds.
std::string shell_quote(const std::string& value);
// The export lines, comments first, for an entrypoint's eval.
std::string render_exports(const EnvAdvice& advice);

}  // namespace commsweep::fabric
