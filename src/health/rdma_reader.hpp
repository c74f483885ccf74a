// RDMA ports from /sys/class/infiniband: state, rate, link layer and the counters the kernel
// exposes (ports/N/counters, ports/N/hw_counters).
#pragma once

#include <vector>

#include "health/records.hpp"
#include "health/tree.hpp"

namespace commsweep::health {

std::vector<PortHealth> read_rdma_ports(const Tree& tree);

// The width in bits the kernel reads a PortCounters attribute with (drivers/infiniband/core/
// sysfs.c, PORT_PMA_ATTR: symbol_error 16, link_downed 8, local_link_integrity_errors 4, ...).
// The traffic counters (data and packets) are 32 bits there and 64 where the HCA has
// PortCountersExtended (EXTENDED: the port shows unicast_xmit_packets, which only the extended
// table has); 64 for hw_counters.
int port_counter_width(const std::string& name, bool extended = false);

// Data and packet counts: traffic, never judged.
bool traffic_counter(const std::string& name);

}  // namespace commsweep::health
