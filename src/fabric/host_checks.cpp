#include "fabric/host_checks.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

namespace commsweep::fabric {

namespace {

std::string mib(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
    std::snprintf(text, sizeof text, "%llu GiB", static_cast<unsigned long long>(bytes >> 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(text, sizeof text, "%.0f MiB", bytes / 1048576.0);
  else
    std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
  return text;
}

std::optional<std::uint64_t> read_cap_eff(const SysfsRoot& root) {
  const auto status = root.read("/proc/self/status");
  if (!status) return std::nullopt;
  std::istringstream in(*status);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  return std::nullopt;
}

bool module_loaded(const SysfsRoot& root, const std::string& name) {
  if (root.exists("/sys/module/" + name)) return true;
  const auto modules = root.read("/proc/modules");
  if (!modules) return false;
  std::istringstream in(*modules);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + " ", 0) == 0) return true;
  return false;
}

bool has_word(const std::string& cmdline, const std::string& word) {
  std::istringstream in(cmdline);
  std::string w;
  while (in >> w)
    if (w == word) return true;
  return false;
}

std::uint16_t le16(const std::string& b, size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                    static_cast<unsigned char>(b[at + 1]) << 8);
}

std::uint32_t le32(const std::string& b, size_t at) {
  return le16(b, at) | static_cast<std::uint32_t>(le16(b, at + 2)) << 16;
}

// The ACS control register of a config space, walking the PCIe extended capabilities
// (from offset 0x100; each header: id in bits 0-15, next offset in bits 20-31).
std::optional<std::uint16_t> acs_control(const std::string& config) {
  constexpr std::uint16_t kAcsId = 0x000d;
  size_t offset = 0x100;
  for (int hops = 0; hops < 64 && offset >= 0x100 && offset + 8 <= config.size(); ++hops) {
    const std::uint32_t header = le32(config, offset);
    if (header == 0 || header == 0xffffffff) break;
    if ((header & 0xffff) == kAcsId) return le16(config, offset + 6);
    offset = header >> 20;
  }
  return std::nullopt;
}

}  // namespace

AcsFacts read_acs(const SysfsRoot& root) {
  AcsFacts acs;
  // ACS P2P Request Redirect (bit 2) and Completion Redirect (bit 3) send peer-to-peer
  // traffic up to the root complex: GPU <-> NIC transfers under one switch lose their path.
  constexpr std::uint16_t kRedirect = 0x4 | 0x8;
  for (const auto& dev : root.list("/sys/bus/pci/devices")) {
    const std::string dir = "/sys/bus/pci/devices/" + dev;
    if (root.read(dir + "/class").value_or("").rfind("0x0604", 0) != 0) continue;  // bridges
    const auto config = root.read_bytes(dir + "/config");
    if (!config || config->size() <= 0x100) continue;  // extended space needs root to read
    ++acs.bridges_read;
    const auto control = acs_control(*config);
    if (control && (*control & kRedirect)) acs.redirect.push_back(dev);
  }
  return acs;
}

void gather_gpudirect_facts(const SysfsRoot& root, HostFacts& f) {
  f.nvidia_driver = module_loaded(root, "nvidia");
  f.nvidia_peermem = module_loaded(root, "nvidia_peermem") || module_loaded(root, "nv_peer_mem");
  f.kernel_release = root.read("/proc/sys/kernel/osrelease").value_or("");
  const std::string version = root.read("/proc/driver/nvidia/version").value_or("");
  f.nvidia_version_line = version.substr(0, version.find('\n'));
  f.gdrdrv_module = module_loaded(root, "gdrdrv");
  f.gdrdrv_major = char_device_major(root.read("/proc/devices").value_or(""), "gdrdrv");
  f.gdrdrv_node = root.exists("/dev/gdrdrv");
}

HostFacts gather_host_facts(const SysfsRoot& root) {
  HostFacts f;
  if (root.is_live()) {
    rlimit limit{};
    if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      f.memlock_bytes = limit.rlim_cur;
  } else if (const auto text = root.read("/proc/self/limits.memlock")) {
    // Fixture trees state the limit in a file of their own: getrlimit cannot be redirected.
    if (*text != "unlimited") f.memlock_bytes = std::strtoull(text->c_str(), nullptr, 10);
  }
  f.cap_eff = read_cap_eff(root);
  f.iommu_units = static_cast<int>(root.list("/sys/class/iommu").size());
  std::set<std::string> types;
  for (const auto& g : root.list("/sys/kernel/iommu_groups"))
    if (const auto t = root.read("/sys/kernel/iommu_groups/" + g + "/type")) types.insert(*t);
  f.group_types.assign(types.begin(), types.end());
  f.cmdline = root.read("/proc/cmdline").value_or("");
  gather_gpudirect_facts(root, f);
  struct statvfs shm {};
  if (statvfs(root.path("/dev/shm").c_str(), &shm) == 0 && root.is_live())
    f.shm_bytes = static_cast<std::uint64_t>(shm.f_blocks) * shm.f_frsize;
  else if (const auto text = root.read("/dev/shm.size"))  // fixtures: tmpfs size in a file
    f.shm_bytes = std::strtoull(text->c_str(), nullptr, 10);
  f.acs = read_acs(root);
  return f;
}

Check check_memlock(const HostFacts& f, bool rdma) {
  const std::string name = "host.memlock";
  if (!f.memlock_bytes) return pass(name, "locked memory unlimited");
  const std::string reason = "locked-memory limit " + mib(*f.memlock_bytes) +
      ": RDMA registers (pins) every buffer NCCL and UCX send from";
  const std::string fix = "ulimit -l unlimited (Docker: --ulimit memlock=-1; Kubernetes: the "
                          "container runtime's default ulimits, e.g. LimitMEMLOCK=infinity for containerd)";
  if (rdma) return fail(name, reason, fix);
  return warn(name, reason + " (no RDMA devices here, so it matters only where they exist)", fix);
}

Check check_ipc_lock(const HostFacts& f, bool rdma) {
  const std::string name = "host.ipc_lock";
  constexpr int kCapIpcLock = 14;
  if (!f.cap_eff) return warn(name, "CapEff not readable in /proc/self/status", "-");
  if (*f.cap_eff >> kCapIpcLock & 1) return pass(name, "CAP_IPC_LOCK in the effective set");
  const std::string reason = "no CAP_IPC_LOCK: memory registration beyond the memlock limit fails";
  const std::string fix = "securityContext.capabilities.add: [IPC_LOCK] (Docker: --cap-add IPC_LOCK)";
  return rdma ? fail(name, reason, fix) : warn(name, reason + " (no RDMA devices here)", fix);
}

Check check_iommu(const HostFacts& f, bool rdma) {
  const std::string name = "host.iommu";
  const bool pt_cmdline = has_word(f.cmdline, "iommu=pt") || has_word(f.cmdline, "iommu.passthrough=1");
  bool translated = false, identity = false;
  for (const auto& t : f.group_types) {
    if (t == "identity") identity = true;
    else if (t.rfind("DMA", 0) == 0) translated = true;  // DMA, DMA-FQ
  }
  if (f.iommu_units == 0 && f.group_types.empty())
    return pass(name, "no IOMMU active (/sys/class/iommu empty)" +
                std::string(pt_cmdline ? "; iommu=pt on the command line" : ""));
  if (!translated)
    return pass(name, std::string("IOMMU in passthrough") + (identity ? " (groups of type identity)" : "") +
                      (pt_cmdline ? ", iommu=pt on the command line" : ""));
  const std::string reason = "IOMMU in translation mode (groups of type DMA): RDMA and GPUDirect "
                             "registrations fail (IBV_WC_LOC_PROT_ERR) or go slow";
  const std::string fix = "add iommu=pt to the kernel command line (intel_iommu=on iommu=pt or "
                          "amd_iommu=on iommu=pt) and reboot";
  return rdma ? fail(name, reason, fix) : warn(name, reason + " (no RDMA devices here)", fix);
}

std::pair<int, int> kernel_version(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

std::optional<NvidiaModule> parse_nvidia_version(const std::string& line) {
  if (line.rfind("NVRM version:", 0) != 0) return std::nullopt;
  const auto module = line.find("Kernel Module");
  if (module == std::string::npos) return std::nullopt;
  NvidiaModule m;
  m.open = line.find("Open Kernel Module") != std::string::npos;
  // The version is the first word after "Kernel Module" that reads as a number ("for x86_64"
  // stands between them in the open module's line).
  std::istringstream words(line.substr(module));
  for (std::string w; words >> w;) {
    if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0])) || w.find('.') == std::string::npos) continue;
    m.version = w;
    m.branch = std::atoi(w.c_str());
    return m;
  }
  return std::nullopt;
}

std::optional<int> char_device_major(const std::string& proc_devices, const std::string& name) {
  // fs/proc/devices.c: "Character devices:", then "%3d %s" a device, a blank line, "Block devices:".
  std::istringstream in(proc_devices);
  bool characters = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Character devices:") { characters = true; continue; }
    if (line.empty() || line.back() == ':') { characters = false; continue; }
    if (!characters) continue;
    std::istringstream fields(line);
    int major = -1;
    std::string device;
    if (fields >> major >> device && device == name) return major;
  }
  return std::nullopt;
}

// NCCL registers GPU memory with the NIC through nvidia_peermem (peer memory), or through dma-buf
// where the kernel and the driver offer it: NCCL_DMABUF_ENABLE (NCCL's environment variables)
// "will be automatically disabled if the Linux kernel or the CUDA/NIC driver do not support it".
// The kernel gained dma-buf memory registration for RDMA in 5.12 (ibv_reg_dmabuf_mr); on the
// NVIDIA side it is the open kernel module's, from the 515 branch that first shipped it (NVIDIA's
// driver installation guide, "Kernel Modules"; the GPU Operator's "GPUDirect RDMA and GPUDirect
// Storage": DMA-BUF needs the open kernel modules and kernel 5.12 or later).
GdrReadiness gpudirect_readiness(const HostFacts& f) {
  if (!f.nvidia_driver) return {GdrPath::NoDriver, "no NVIDIA driver loaded"};
  if (f.nvidia_peermem) return {GdrPath::PeerMem, "nvidia_peermem loaded"};
  const auto kernel = kernel_version(f.kernel_release);
  const auto module = parse_nvidia_version(f.nvidia_version_line);
  const bool kernel_ok = kernel >= kDmaBufKernel;
  const bool driver_ok = module && module->open && module->branch >= kDmaBufDriverBranch;
  if (kernel_ok && driver_ok)
    return {GdrPath::DmaBuf, "dma-buf: kernel " + f.kernel_release + " >= 5.12 and the NVIDIA open kernel module " +
                                 module->version + " (>= 515)"};
  std::string missing;
  auto add = [&](const std::string& part) { missing += (missing.empty() ? "" : "; ") + part; };
  if (!kernel_ok) add("kernel " + (f.kernel_release.empty() ? std::string("unknown") : f.kernel_release) + " < 5.12");
  if (!module) add("the driver's flavour unknown (no /proc/driver/nvidia/version)");
  else if (!module->open) add("the proprietary kernel module " + module->version + ", not the open one");
  else if (module->branch < kDmaBufDriverBranch) add("the open kernel module " + module->version + " < 515");
  return {GdrPath::None, "neither nvidia_peermem nor dma-buf (" + missing + ")"};
}

std::string to_string(GdrPath path) {
  switch (path) {
    case GdrPath::NoDriver: return "no_driver";
    case GdrPath::PeerMem: return "peermem";
    case GdrPath::DmaBuf: return "dmabuf";
    case GdrPath::None: return "none";
  }
  return "?";
}

GdrPath gdr_path_from_string(const std::string& text) {
  for (GdrPath p : {GdrPath::NoDriver, GdrPath::PeerMem, GdrPath::DmaBuf, GdrPath::None})
    if (to_string(p) == text) return p;
  throw std::invalid_argument("unknown GPUDirect RDMA path '" + text + "'");
}

Check check_gpudirect(const HostFacts& f, bool rdma) {
  const std::string name = "host.gpudirect";
  const GdrReadiness ready = gpudirect_readiness(f);
  switch (ready.path) {
    case GdrPath::NoDriver: return pass(name, "not applicable: " + ready.reason);
    case GdrPath::PeerMem: return pass(name, "nvidia_peermem loaded: GPUDirect RDMA available");
    case GdrPath::DmaBuf:
      return pass(name, ready.reason + ": GPUDirect RDMA through dma-buf (NCCL logs 'DMA-BUF is available')");
    case GdrPath::None: break;
  }
  const std::string reason = ready.reason + ": NCCL stages GPU data through host memory";
  const std::string fix = "modprobe nvidia_peermem (GPU Operator: driver.rdma.enabled=true), or for dma-buf the "
                          "NVIDIA open kernel module >= 515 on a kernel >= 5.12";
  return rdma ? warn(name, reason, fix) : pass(name, "not needed: no RDMA devices (" + reason + ")");
}

// gdrcopy maps GPU memory for the CPU through its kernel module, gdrdrv, and the node /dev/gdrdrv
// (gdrcopy's insmod.sh makes it from the "gdrdrv" line of /proc/devices). Without it NCCL's network
// proxy (NCCL_GDRCOPY_ENABLE) and low-latency EP kernels (NVSHMEM, DeepEP) fall back to slower
// paths: issue 45 saw low-latency EP 20-120 times slower on nodes without /dev/gdrdrv.
Check check_gdrcopy(const HostFacts& f, bool rdma) {
  const std::string name = "host.gdrcopy";
  if (!f.nvidia_driver) return pass(name, "not applicable: no NVIDIA driver loaded");
  const std::string chrdev = f.gdrdrv_major ? "character device " + std::to_string(*f.gdrdrv_major)
                                           : std::string("not in /proc/devices");
  if (f.gdrdrv_module && f.gdrdrv_node)
    return pass(name, "gdrdrv loaded (" + chrdev + ") and /dev/gdrdrv present: gdrcopy ready");
  std::string reason, fix;
  if (f.gdrdrv_module) {
    reason = "gdrdrv loaded (" + chrdev + ") but no /dev/gdrdrv here: gdrcopy cannot open it";
    fix = "give the container /dev/gdrdrv (docker --device=/dev/gdrdrv; Kubernetes: the NVIDIA device plugin's "
          "gdrcopy support, GPU Operator gdrcopy.enabled=true)";
  } else {
    reason = "no gdrdrv module (gdrcopy): low-latency EP and NCCL's small-message path lose the CPU's "
             "mapping of GPU memory";
    fix = "install gdrcopy's gdrdrv module (its insmod.sh or the gdrdrv-dkms package; GPU Operator "
          "gdrcopy.enabled=true)";
  }
  return rdma ? warn(name, reason, fix) : pass(name, "not needed: no RDMA devices (" + reason + ")");
}

Check check_shm(const HostFacts& f) {
  const std::string name = "host.shm";
  if (!f.shm_bytes) return warn(name, "/dev/shm not mounted or not readable", "mount a tmpfs at /dev/shm");
  // NCCL's SHM transport and its proxies keep their FIFOs and buffers (NCCL_BUFFSIZE, 4 MiB per
  // protocol per channel and peer) in /dev/shm; NCCL's troubleshooting guide asks containers for
  // 1 GiB (docker --shm-size=1g) and Docker's default 64 MiB is known to be too small for several local ranks.
  const std::string size = "/dev/shm is " + mib(*f.shm_bytes);
  const std::string fix = "Kubernetes: an emptyDir {medium: Memory, sizeLimit: 1Gi} at /dev/shm; Docker: --shm-size=1g";
  if (*f.shm_bytes <= kShmDockerDefault)
    return fail(name, size + " (Docker's default): NCCL fails to create its shared segments", fix);
  if (*f.shm_bytes < kShmBytesNeeded) return warn(name, size + ", below the 1 GiB NCCL asks containers for", fix);
  return pass(name, size + " (NCCL asks for 1 GiB)");
}

Check check_acs(const HostFacts& f) {
  const std::string name = "host.pcie_acs";
  if (f.acs.bridges_read == 0)
    return pass(name, "not visible: no PCI bridge's extended config space could be read");
  if (f.acs.redirect.empty())
    return pass(name, "ACS redirect off on the " + std::to_string(f.acs.bridges_read) + " PCI bridges read");
  std::string list;
  for (size_t i = 0; i < f.acs.redirect.size() && i < 4; ++i) list += (i ? ", " : "") + f.acs.redirect[i];
  if (f.acs.redirect.size() > 4) list += ", ...";
  return warn(name, "ACS P2P redirect on " + std::to_string(f.acs.redirect.size()) + " bridges (" + list +
                    "): GPU-NIC peer traffic detours through the root complex",
              "disable ACS on the PCIe switches (setpci ... ECAP_ACS+0x6.w=0000, or the BIOS)");
}

std::vector<Check> judge_host(const HostFacts& f, bool rdma) {
  return {check_memlock(f, rdma), check_ipc_lock(f, rdma), check_iommu(f, rdma),
          check_gpudirect(f, rdma), check_gdrcopy(f, rdma), check_shm(f), check_acs(f)};
}

}  // namespace commsweep::fabric
