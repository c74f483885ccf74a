// libibverbs: what sysfs does not show (an InfiniBand port's active MTU, the width and speed
// as the HCA reports them). Used on the live machine where devices exist.
#pragma once

#include <string>
#include <vector>

#include "fabric/rdma_inventory.hpp"

namespace commsweep::fabric {

// The names ibv_get_device_list returns (empty where there are no devices or no driver).
std::vector<std::string> verbs_device_names();
// Fills the active MTU and firmware of the devices verbs can open; returns whether any could.
bool complete_with_verbs(std::vector<RdmaDevice>* devices);

}  // namespace commsweep::fabric
