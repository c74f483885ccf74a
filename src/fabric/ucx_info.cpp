#include "fabric/ucx_info.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/secrets.hpp"

#if COMMSWEEP_HAVE_UCX
#include <ucp/api/ucp.h>
#endif

namespace commsweep::fabric {

namespace {

#if COMMSWEEP_HAVE_UCX
// ucp_init with the tag feature, as Open MPI's pml/ucx asks, then the resources it selected.
void list_transports(UcxInfo* info) {
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) {
    info->error = "ucp_config_read failed (a bad UCX_* setting?)";
    return;
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG;
  ucp_context_h context = nullptr;
  const ucs_status_t status = ucp_init(&params, config, &context);
  ucp_config_release(config);
  if (status != UCS_OK) {
    info->error = std::string("ucp_init failed: ") + ucs_status_string(status);
    return;
  }
  char* text = nullptr;
  size_t size = 0;
  if (FILE* out = open_memstream(&text, &size)) {
    ucp_context_print_info(context, out);
    std::fclose(out);
    info->transports = parse_ucx_resources(std::string(text, size));
    std::free(text);
  }
  ucp_cleanup(context);
}
#endif

// The Open MPI parameters that choose transports (mpirun itself sets many OMPI_MCA_* for its
// own bookkeeping: those are left out).
bool transport_setting(const std::string& name) {
  for (const char* prefix : {"OMPI_MCA_pml", "OMPI_MCA_btl", "OMPI_MCA_osc", "OMPI_MCA_mtl", "OMPI_MCA_coll",
                             "OMPI_MCA_opal_cuda", "OMPI_MCA_mpi_cuda"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> parse_ucx_resources(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("resource") == std::string::npos) continue;
    const auto flags = line.find("-- ");
    if (flags == std::string::npos) continue;
    std::istringstream rest(line.substr(flags + 3));
    std::string tl;
    if (rest >> tl) out.push_back(tl);
  }
  return out;
}

UcxInfo read_ucx_info(char** envp) {
  UcxInfo info;
  for (char** e = envp; e && *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (entry.rfind("UCX_", 0) != 0 && !transport_setting(name)) continue;
    // The check's message goes to the terminal and the preflight JSON: no credentials.
    if (looks_secret_setting(name, value)) {
      ++info.withheld;
      continue;
    }
    info.settings[name] = value;
  }
#if COMMSWEEP_HAVE_UCX
  info.built_with_ucx = true;
  info.version = ucp_get_version_string();
  list_transports(&info);
#endif
  return info;
}

Check describe_ucx(const UcxInfo& info) {
  std::string settings;
  for (const auto& [k, v] : info.settings) settings += (settings.empty() ? "" : " ") + k + "=" + v;
  if (settings.empty()) settings = "no UCX_* or OMPI_MCA_{pml,btl,osc,mtl,coll}* settings (Open MPI's defaults)";
  if (info.withheld > 0)
    settings += " (" + std::to_string(info.withheld) + " that look like credentials not shown)";
  if (!info.built_with_ucx)
    return pass("ucx", "built without UCX headers: version and transports unknown; " + settings);
  if (!info.error.empty())
    return warn("ucx", "UCX " + info.version + ": " + info.error + "; " + settings,
                "check the UCX_* settings (ucx_info -c shows UCX's configuration)");
  std::string tls;
  for (const auto& t : info.transports) tls += (tls.empty() ? "" : ",") + t;
  return pass("ucx", "UCX " + info.version + ", transports " + (tls.empty() ? "none" : tls) + "; " + settings);
}

}  // namespace commsweep::fabric
