// RDMA ports from /sys/class/infiniband: state, rate, link layer and the counters the kernel
// exposes (ports/N/counters, ports/N/hw_counters).
#pragma once

#include <vector>

#include "health/records.hpp"
#include "health/tree.hpp"

namespace commsweep::health {

std::vector<PortHealth> read_rdma_ports(const Tree& tree);

// The width in bits the kernel reads a PortCounters attribute with (drivers/infiniband/core/
// sysfs.c: symbol_error 16, link_downed 8, local_link_integrity_errors 4, ...); 64 for
// hw_counters and for counters the kernel reads from PortCountersExtended.
int port_counter_width(const std::string& name);

}  // namespace commsweep::health
