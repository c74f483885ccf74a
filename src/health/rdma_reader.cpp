#include "health/rdma_reader.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

namespace commsweep::health {

bool traffic_counter(const std::string& name) {
  for (const char* t : {"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
                        "unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets"})
    if (name == t) return true;
  return false;
}

int port_counter_width(const std::string& name, bool extended) {
  // IBA PortCounters (attribute 0x12) field widths, as the kernel's PORT_PMA_ATTR table reads
  // them; its PORT_PMA_ATTR_EXT table reads the traffic counters from PortCountersExtended
  // (0x1D), 64 bits wide, on every HCA whose ClassPortInfo says it has them (every mlx5).
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
  };
  if (traffic_counter(name)) return extended ? 64 : 32;
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

// A traffic counter at the width the kernel read it: 32 bits from the plain table, 64 from the
// extended one. Without unicast_* the kernel may still have read the extended table (its
// "noietf" variant keeps the data and packet counts 64 bits wide): a value over 32 bits says so.
Counter traffic(const std::string& name, const std::string& text, bool extended) {
  Counter c = parse_counter(name, text, 64);
  if (!extended && c.value && *c.value <= ceiling(32)) c = parse_counter(name, text, 32);
  return c;
}

// Every file of DIR as a counter; a missing folder is one unread line. ALL_64: hw_counters.
std::vector<Counter> read_counters(const Tree& tree, const std::string& dir, bool all_64,
                                   const std::string& label, std::vector<std::string>* unread) {
  std::vector<Counter> out;
  if (!tree.exists(dir)) {
    unread->push_back(label + "/: missing");
    return out;
  }
  const bool extended = tree.exists(dir + "/unicast_xmit_packets");
  for (const auto& name : tree.list(dir)) {
    if (is_setting(name)) continue;
    const FileText file = tree.read(dir + "/" + name);
    const int width = all_64 ? 64 : port_counter_width(name, extended);
    Counter c{name, std::nullopt, width, false, file.problem};
    if (file.text && !all_64 && traffic_counter(name)) c = traffic(name, *file.text, extended);
    else if (file.text) c = parse_counter(name, *file.text, width);
    if (!c.value) unread->push_back(label + "/" + name + ": " + c.problem);
    out.push_back(std::move(c));
  }
  return out;
}

std::string text_or(const Tree& tree, const std::string& file, const char* fallback) {
  return tree.read(file).text.value_or(fallback);
}

// hca_type (mlx4, mlx5: "MT4119"), else board_id (hfi1 and others), else the PCI device id.
std::string nic_model(const Tree& tree, const std::string& dev_dir) {
  for (const char* file : {"/hca_type", "/board_id"}) {
    const auto text = tree.read(dev_dir + file).text;
    if (text && !text->empty()) return *text;
  }
  const auto id = tree.read(dev_dir + "/device/device").text;
  return id && !id->empty() ? "PCI " + *id : "";
}

}  // namespace

std::vector<PortHealth> read_rdma_ports(const Tree& tree) {
  std::vector<PortHealth> ports;
  for (const auto& device : tree.list("/sys/class/infiniband")) {
    const std::string dev_dir = "/sys/class/infiniband/" + device;
    const std::string pci = tree.link_name(dev_dir + "/device").value_or("");
    const std::string model = nic_model(tree, dev_dir);
    for (const auto& number : tree.list(dev_dir + "/ports")) {
      const std::string dir = dev_dir + "/ports/" + number;
      PortHealth p;
      p.device = device;
      p.port = std::atoi(number.c_str());
      p.pci_address = pci;
      p.nic_model = model;
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
