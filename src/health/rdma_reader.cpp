#include "health/rdma_reader.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

namespace commsweep::health {

int port_counter_width(const std::string& name) {
  // IBA PortCounters (attribute 0x12) field widths, as the kernel's PORT_PMA_ATTR table reads
  // them. The data and packet counters are 32 bits there and 64 where the HCA has
  // PortCountersExtended (every mlx5): a 32-bit reading at its ceiling is still reported as
  // saturated, since nothing in sysfs says which one the kernel used.
  static const std::map<std::string, int> widths = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32},
      {"port_xmit_data", 32},
      {"port_rcv_data", 32},
      {"port_xmit_packets", 32},
      {"port_rcv_packets", 32},
  };
  const auto it = widths.find(name);
  return it == widths.end() ? 64 : it->second;
}

namespace {

using fabric::strip_code;  // "4: ACTIVE" -> "ACTIVE"

void parse_rate(const std::string& rate, double* gbps, int* width) {
  std::istringstream in(rate);
  in >> *gbps;
  if (!in) *gbps = 0;
  const auto open = rate.find('(');
  *width = open == std::string::npos ? 0 : std::atoi(rate.c_str() + open + 1);
}

// hw_counters holds a few settings beside the counters: not counts.
bool is_setting(const std::string& name) { return name == "lifespan"; }

// Every file of DIR as a counter; a missing folder is one unread line.
std::vector<Counter> read_counters(const Tree& tree, const std::string& dir, bool extended_widths,
                                   const std::string& label, std::vector<std::string>* unread) {
  std::vector<Counter> out;
  if (!tree.exists(dir)) {
    unread->push_back(label + "/: missing");
    return out;
  }
  for (const auto& name : tree.list(dir)) {
    if (is_setting(name)) continue;
    const FileText file = tree.read(dir + "/" + name);
    const int width = extended_widths ? 64 : port_counter_width(name);
    Counter c = file.text ? parse_counter(name, *file.text, width) : Counter{name, std::nullopt, width, false, file.problem};
    if (!c.value) unread->push_back(label + "/" + name + ": " + c.problem);
    out.push_back(std::move(c));
  }
  return out;
}

std::string text_or(const Tree& tree, const std::string& file, const char* fallback) {
  return tree.read(file).text.value_or(fallback);
}

}  // namespace

std::vector<PortHealth> read_rdma_ports(const Tree& tree) {
  std::vector<PortHealth> ports;
  for (const auto& device : tree.list("/sys/class/infiniband")) {
    const std::string dev_dir = "/sys/class/infiniband/" + device;
    const std::string pci = tree.link_name(dev_dir + "/device").value_or("");
    for (const auto& number : tree.list(dev_dir + "/ports")) {
      const std::string dir = dev_dir + "/ports/" + number;
      PortHealth p;
      p.device = device;
      p.port = std::atoi(number.c_str());
      p.pci_address = pci;
      p.state = strip_code(text_or(tree, dir + "/state", "unknown"));
      p.phys_state = strip_code(text_or(tree, dir + "/phys_state", "unknown"));
      p.link_layer = text_or(tree, dir + "/link_layer", "unknown");
      p.rate = text_or(tree, dir + "/rate", "");
      parse_rate(p.rate, &p.speed_gbps, &p.width);
      p.counters = read_counters(tree, dir + "/counters", false, "counters", &p.unread);
      // hw_counters are optional (drivers without them, older kernels): absent is not unread.
      if (tree.exists(dir + "/hw_counters"))
        p.hw_counters = read_counters(tree, dir + "/hw_counters", true, "hw_counters", &p.unread);
      ports.push_back(std::move(p));
    }
  }
  return ports;
}

}  // namespace commsweep::health
