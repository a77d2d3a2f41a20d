// The host side of the plugin ABI for one plugin: the plexus_host_api table
// it is given, the device backends and kernels it registers, and its shutdown.
// The loader (plugin_loader.cpp) finds and opens plugins; this runs them.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/plugin.h"

namespace plexus {

struct HostContext;  // per-plugin state behind host_ctx (plugin_host.cpp)

// A plugin whose entry point has been called and whose version was accepted.
// Its host context points back at it: do not move it after init_plugin.
struct PluginInstance {
  std::string name;     // from plexus_plugin_info, equal to the manifest's
  std::string version;  // the plugin's own version
  std::string library;  // path of the shared library
  const plexus_plugin_info* info = nullptr;
  std::map<std::string, std::string> options;  // per-plugin options from the config
  void* state = nullptr;                        // what init returned
  std::vector<DeviceType> device_types;         // backends it registered
  std::vector<std::string> defined_ops;         // ops it defined
  size_t kernel_count = 0;                      // kernels it registered
  bool abandoned = false;  // its init ran past the time limit (see init_plugin)
  std::unique_ptr<HostContext> ctx;
  PluginInstance();
  ~PluginInstance();
  PluginInstance(PluginInstance&&) noexcept;
  PluginInstance& operator=(PluginInstance&&) noexcept;
};

// Calls info->init with a host table bound to `p`. On failure (an error
// status, or a registration refused) it undoes what the plugin registered,
// calls its shutdown, and throws plexus::Error carrying the plugin's message.
// With a positive timeout init runs on a thread of its own; one that has not
// returned by then is abandoned: its registrations are undone and refused
// from then on, p.abandoned is set and Error(DeviceError) is thrown. The
// caller must then keep `p` and the library alive forever (the thread may
// still run in them).
void init_plugin(PluginInstance& p,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

// The graph compiler (plugin ABI 1.1) a loaded plugin registered for this
// device type, cpu included; null when none.
const plexus_graph_extension* graph_compiler(DeviceType type);
// Synchronizes the plugin's devices, frees their cached memory, removes its
// kernels and backends from the dispatcher, and calls its shutdown. Throws
// Error(InvalidArgument), changing nothing, while tensors on its devices live.
void shutdown_plugin(PluginInstance& p);

}  // namespace plexus
