#include "health/pcie_reader.hpp"

#include <cstdlib>
#include <sstream>

namespace commsweep::health {

bool parse_aer(const std::string& text, std::map<std::string, std::uint64_t>* counts, std::uint64_t* total,
               std::string* problem) {
  std::istringstream in(text);
  std::string line;
  bool saw_total = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos || space == 0) {
      *problem = "line \"" + line.substr(0, 40) + "\" is not NAME COUNT";
      return false;
    }
    const std::string name = line.substr(0, space);
    const Counter c = parse_counter(name, line.substr(space + 1), 64);
    if (!c.value) {
      *problem = name + ": " + c.problem;
      return false;
    }
    if (name.rfind("TOTAL_ERR_", 0) == 0) {
      *total = *c.value;
      saw_total = true;
    } else {
      (*counts)[name] = *c.value;
    }
  }
  if (!saw_total) {
    *problem = "no TOTAL_ERR_ line (truncated?)";
    return false;
  }
  return true;
}

namespace {

// PCI class 0x0302xx (3D controller) or 0x0300xx (VGA) from vendor 0x10de: an NVIDIA GPU.
bool nvidia_gpu(const Tree& tree, const std::string& dir) {
  const auto vendor = tree.read(dir + "/vendor").text;
  const auto klass = tree.read(dir + "/class").text;
  if (!vendor || *vendor != "0x10de" || !klass) return false;
  return klass->rfind("0x0302", 0) == 0 || klass->rfind("0x0300", 0) == 0;
}

PcieLink read_link(const Tree& tree, const std::string& address, const std::string& role) {
  const std::string dir = "/sys/bus/pci/devices/" + address;
  PcieLink l;
  l.address = address;
  l.role = role;
  auto text = [&](const char* name) {
    FileText f = tree.read(dir + "/" + name);
    if (!f.text) l.unread.push_back(std::string(name) + ": " + f.problem);
    return f.text.value_or("");
  };
  l.current_speed = text("current_link_speed");
  l.max_speed = text("max_link_speed");
  l.current_width = std::atoi(text("current_link_width").c_str());
  l.max_width = std::atoi(text("max_link_width").c_str());
  // AER statistics need CONFIG_PCIEAER and a port with AER: absent is normal.
  if (tree.exists(dir + "/aer_dev_correctable")) {
    AerCounts aer;
    struct File { const char* name; std::map<std::string, std::uint64_t>* counts; std::uint64_t* total; };
    bool ok = true;
    for (const File& f : {File{"aer_dev_correctable", &aer.correctable, &aer.total_correctable},
                          File{"aer_dev_nonfatal", &aer.nonfatal, &aer.total_nonfatal},
                          File{"aer_dev_fatal", &aer.fatal, &aer.total_fatal}}) {
      const FileText file = tree.read(dir + "/" + f.name);
      std::string problem = file.problem;
      if (!file.text || !parse_aer(*file.text, f.counts, f.total, &problem)) {
        l.unread.push_back(std::string(f.name) + ": " + problem);
        ok = false;
      }
    }
    if (ok) l.aer = std::move(aer);
  }
  return l;
}

}  // namespace

std::vector<PcieLink> read_pcie_links(const Tree& tree) {
  std::vector<PcieLink> links;
  for (const auto& address : tree.list("/sys/bus/pci/devices")) {
    if (nvidia_gpu(tree, "/sys/bus/pci/devices/" + address)) links.push_back(read_link(tree, address, "GPU"));
  }
  for (const auto& device : tree.list("/sys/class/infiniband")) {
    const auto address = tree.link_name("/sys/class/infiniband/" + device + "/device");
    if (address) links.push_back(read_link(tree, *address, "NIC " + device));
  }
  return links;
}

}  // namespace commsweep::health
