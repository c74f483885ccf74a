// The NVLink mode of one GPU: how many of its model's links are active, at which version and
// speed, against the model's own from a table of published figures (nvlink_mode.cpp). A link
// that trained down (fewer active than the model has, a lower version or speed) is reduced; a
// model with fewer links by design (a PCIe card with NVLink bridges: as many as are fitted) is
// not; a model the table lacks is said, not judged.
#pragma once

#include <optional>
#include <string>

#include "health/records.hpp"

namespace commsweep::health {

// One row of the table: a GPU model as NVML (and CUDA) name it, and its NVLinks.
struct NvLinkModel {
  const char* model;       // "H100 SXM", as the messages say it
  int links;               // NVLinks the model has
  int nvml_version;        // nvmlNvlinkVersion_t of them (6: NVLink 4.0)
  double gbps;             // GB/s per link and direction, the published figure
  bool bridged;            // links through bridges a board may lack: fewer active is by design
};

// The row whose name NVML_NAME ("NVIDIA H200", "NVIDIA A100-SXM4-80GB") matches; nullptr when
// none does.
const NvLinkModel* nvlink_model_of(const std::string& nvml_name);

// "4.0" for nvmlNvlinkVersion_t 6; "?" for one the table does not know.
std::string nvlink_version_name(int nvml_version);

// What NVML said of a GPU's links, and the mode judged from it.
struct NvLinkMode {
  std::string name;          // the GPU's name, as NVML gives it
  const NvLinkModel* model = nullptr;
  int active = 0;            // links NVML calls active
  int present = 0;           // links NVML reported (state read), or its link count field
  int version = 0;           // nvmlNvlinkVersion_t of the active links; 0 unread
  std::optional<unsigned> speed_mbps;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON; unset unread
  bool reduced = false;      // trained down against the model (never for a model not in the table)
  std::string why;           // what is reduced: "12 of 18 links active", "NVLink 3.0 where ..."

  // "18 of 18 links at NVLink 4.0, 25 GB/s each"; "reduced: 12 of 18 links active (H100 SXM has
  // 18 at NVLink 4.0)"; "4 of up to 12 links (bridged: as fitted)"; "18 links active at NVLink
  // 4.0 (no NVLink table entry for NVIDIA H20)"; "no NVLink" when none is active or present.
  std::string text() const;
};

// The mode of a GPU named NAME with ACTIVE of PRESENT links at VERSION and SPEED_MBPS.
NvLinkMode nvlink_mode(const std::string& name, int active, int present, int version,
                       std::optional<unsigned> speed_mbps);

// The mode of G as a snapshot holds it (its links read, their version, speed and count).
NvLinkMode nvlink_mode(const GpuHealth& g);

}  // namespace commsweep::health
