// UCX as Open MPI will use it: the library's version and transports (where commsweep was built
// with UCX headers), and the UCX_* and OMPI_MCA_* settings in the environment.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fabric/check.hpp"

namespace commsweep::fabric {

struct UcxInfo {
  bool built_with_ucx = false;
  std::string version;                  // ucp_get_version_string()
  std::vector<std::string> transports;  // "tcp/eth0", "self/memory", "rc_mlx5/mlx5_0:1"
  std::string error;                    // why the transports could not be listed
  std::map<std::string, std::string> settings;  // UCX_* and OMPI_MCA_*, credentials left out
  int withheld = 0;  // settings left out because they look like credentials (core/secrets.hpp)
};

UcxInfo read_ucx_info(char** envp);
// "... flags -- tcp/eth0" lines of ucp_context_print_info's text -> "tcp/eth0".
std::vector<std::string> parse_ucx_resources(const std::string& text);
Check describe_ucx(const UcxInfo& info);

}  // namespace commsweep::fabric
