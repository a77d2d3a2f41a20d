// libplexus-hip.so, the "hip" plugin: a loader in front of the hip kernels
// and runtime (libplexus-hip_runtime.so, built from plugins/cuda). Mapping the
// HIP runtime (libamdhip64 and the LLVM libraries it needs) costs 20-100 ms,
// and every process that loads the default plugin directory would pay it.
// So this library links none of it: without AMD's kernel driver (/dev/kfd)
// it registers the hip device type with 0 devices and the reason; with the
// driver it opens the runtime library from its own directory and hands it
// init and shutdown.
#include "plexus/plugin.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <string>

namespace sdk = plexus::sdk;

namespace {

constexpr const char* kNoDriver =
    "no AMD GPU kernel driver: /dev/kfd does not exist (the amdgpu module is not loaded, or "
    "there is no AMD GPU); the HIP runtime was not loaded";

// The device type as it is without a driver: no devices, and why.
struct NoDevices : sdk::HostMemoryBackend<NoDevices> {
  int32_t device_count() { return 0; }
  const char* unavailable_reason() { return kNoDriver; }
  void properties(int32_t device, plexus_device_properties&) {
    sdk::fail(PLEXUS_ERROR_NOT_FOUND, "hip:{}: hip has no devices ({})", device, kNoDriver);
  }
};

void* g_runtime = nullptr;  // libplexus-hip_runtime.so, when opened
const plexus_plugin_info* g_runtime_info = nullptr;

// Opens the runtime library beside this one; fails naming what is wrong.
void open_runtime(const plexus_host_api* host) {
  const std::string dir = sdk::plugin_directory(host);
  if (dir.empty())
    sdk::fail(PLEXUS_ERROR_INTERNAL, "hip: the host does not say the plugin's directory");
  const std::string path = dir + "/libplexus-hip_runtime.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    sdk::fail(PLEXUS_ERROR_NOT_FOUND, "hip: cannot open {}: {}", path, e ? e : "");
  }
  using Entry = const plexus_plugin_info* (*)(uint32_t, uint32_t);
  auto entry = reinterpret_cast<Entry>(dlsym(lib, "plexus_plugin_entry"));
  const plexus_plugin_info* info = entry ? entry(PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR) : nullptr;
  if (!info || !info->init || info->abi_major != PLEXUS_ABI_MAJOR) {
    dlclose(lib);
    sdk::fail(PLEXUS_ERROR_INTERNAL, "hip: {} is not this plugin's runtime library", path);
  }
  g_runtime = lib;
  g_runtime_info = info;
}

plexus_status init(const plexus_host_api* host, void** state) {
  if (access("/dev/kfd", F_OK) != 0)
    return sdk::init_backend<NoDevices>(host, state, "hip", [](NoDevices&) {});
  plexus_status st = sdk::guard(host, [host] { open_runtime(host); });
  if (st != PLEXUS_OK) return st;
  return g_runtime_info->init(host, state);
}

void shutdown(void* state) {
  if (!g_runtime_info) {
    sdk::shutdown_backend<NoDevices>(state);
    return;
  }
  if (g_runtime_info->shutdown) g_runtime_info->shutdown(state);
  g_runtime_info = nullptr;
  dlclose(g_runtime);
  g_runtime = nullptr;
}

}  // namespace

PLEXUS_SDK_PLUGIN(init, shutdown)
