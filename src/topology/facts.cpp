#include "topology/facts.hpp"

#include <algorithm>
#include <cctype>

namespace commsweep::topology {
namespace {

int to_int(const std::string* text, int fallback) {
  if (text == nullptr) return fallback;
  try {
    std::size_t used = 0;
    const int v = std::stoi(*text, &used, 0);
    return used == text->size() ? v : fallback;
  } catch (const std::exception&) {
    return fallback;
  }
}

class Reader {
 public:
  explicit Reader(TopologyFacts& facts) : facts_(facts) {}

  void system(const XmlElement& root) {
    if (root.name != "system") {
      problem(root.line, "the root element is <" + root.name + ">, NCCL expects <system version=\"1\">");
      return;
    }
    if (root.attribute("version") == nullptr) problem(root.line, "<system> has no version attribute");
    for (const auto& c : root.children) walk(c, nullptr, -1);
  }

 private:
  void problem(int line, std::string reason) { facts_.problems.push_back({line, std::move(reason)}); }

  // `pci`: the nearest enclosing <pci> with its bus id; numaid: the enclosing <cpu>'s.
  void walk(const XmlElement& e, const XmlElement* pci, int numaid) {
    if (e.name == "cpu") {
      numaid = to_int(e.attribute("numaid"), -1);
      if (numaid < 0) problem(e.line, "<cpu> without a numeric numaid");
    } else if (e.name == "pci") {
      const auto* busid = e.attribute("busid");
      if (busid == nullptr || normal_busid(*busid).empty()) {
        problem(e.line, "<pci> without a valid busid (e.g. 0000:0f:00.0)");
      }
      pci = &e;
    } else if (e.name == "gpu") {
      gpu(e, pci, numaid);
    } else if (e.name == "nic") {
      for (const auto& net : e.children) {
        if (net.name == "net") this->net(net, pci, numaid);
      }
      return;
    } else if (e.name == "net") {
      problem(e.line, "<net> outside a <nic>");
    }
    for (const auto& c : e.children) walk(c, pci, numaid);
  }

  static std::string busid_of(const XmlElement* pci) {
    const auto* b = pci ? pci->attribute("busid") : nullptr;
    return b ? normal_busid(*b) : std::string();
  }

  void gpu(const XmlElement& e, const XmlElement* pci, int numaid) {
    GpuFact g{busid_of(pci), to_int(e.attribute("dev"), -1), numaid, e.line};
    if (pci == nullptr) problem(e.line, "<gpu> outside a <pci> (NCCL finds a GPU by its PCI bus id)");
    if (g.dev < 0) problem(e.line, "<gpu> without a numeric dev");
    for (const auto& l : e.children) {
      if (l.name == "nvlink" && (l.attribute("target") == nullptr || to_int(l.attribute("count"), 0) <= 0)) {
        problem(l.line, "<nvlink> needs a target bus id and a count > 0");
      }
    }
    facts_.gpus.push_back(std::move(g));
  }

  void net(const XmlElement& e, const XmlElement* pci, int numaid) {
    const auto* name = e.attribute("name");
    NetFact n{name ? *name : "", to_int(e.attribute("port"), 1), busid_of(pci), numaid, e.line};
    if (n.name.empty()) problem(e.line, "<net> without a name (mlx5_N)");
    if (pci == nullptr) problem(e.line, "<nic> outside a <pci>");
    if (to_int(e.attribute("speed"), 0) <= 0) problem(e.line, "<net name=\"" + n.name + "\"> without a speed > 0");
    facts_.nets.push_back(std::move(n));
  }

  TopologyFacts& facts_;
};

}  // namespace

std::string normal_busid(const std::string& text) {
  std::string b;
  for (const char c : text) b += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // dddd:bb:dd.f, hex digits
  if (b.size() != 12 || b[4] != ':' || b[7] != ':' || b[10] != '.') return {};
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u}) {
    if (!std::isxdigit(static_cast<unsigned char>(b[i]))) return {};
  }
  return b;
}

std::vector<std::string> TopologyFacts::nic_names() const {
  std::vector<std::string> names;
  for (const auto& n : nets) {
    if (std::find(names.begin(), names.end(), n.name) == names.end()) names.push_back(n.name);
  }
  return names;
}

TopologyFacts read_topology_facts(const XmlElement& root) {
  TopologyFacts facts;
  Reader(facts).system(root);
  return facts;
}

}  // namespace commsweep::topology
