#include "fabric/verbs_inventory.hpp"

#include <infiniband/verbs.h>

#include <memory>

namespace commsweep::fabric {

namespace {

struct DeviceList {
  ibv_device** list = nullptr;
  int count = 0;
  DeviceList() { list = ibv_get_device_list(&count); }
  ~DeviceList() {
    if (list) ibv_free_device_list(list);
  }
};

struct Context {
  ibv_context* ctx;
  explicit Context(ibv_device* dev) : ctx(ibv_open_device(dev)) {}
  ~Context() {
    if (ctx) ibv_close_device(ctx);
  }
};

int mtu_bytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
  }
  return 0;
}

void complete(ibv_context* ctx, RdmaDevice* dev) {
  ibv_device_attr attr{};
  if (ibv_query_device(ctx, &attr) == 0 && dev->fw_ver.empty()) dev->fw_ver = attr.fw_ver;
  for (auto& port : dev->ports) {
    ibv_port_attr pattr{};
    if (ibv_query_port(ctx, static_cast<uint8_t>(port.number), &pattr) != 0) continue;
    port.active_mtu = mtu_bytes(pattr.active_mtu);
  }
}

}  // namespace

std::vector<std::string> verbs_device_names() {
  DeviceList devices;
  std::vector<std::string> names;
  for (int i = 0; devices.list && i < devices.count; ++i)
    names.push_back(ibv_get_device_name(devices.list[i]));
  return names;
}

bool complete_with_verbs(std::vector<RdmaDevice>* devices) {
  DeviceList list;
  bool any = false;
  for (int i = 0; list.list && i < list.count; ++i) {
    const std::string name = ibv_get_device_name(list.list[i]);
    for (auto& dev : *devices) {
      if (dev.name != name) continue;
      Context context(list.list[i]);
      if (!context.ctx) continue;
      complete(context.ctx, &dev);
      any = true;
    }
  }
  return any;
}

}  // namespace commsweep::fabric
