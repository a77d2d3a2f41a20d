// The plugin's entry point, written once:
//
//   PLEXUS_SDK_PLUGIN(init, shutdown)
//
// defines plexus_plugin_entry, the one symbol a plugin exports (extern "C",
// visible), returning its plexus_plugin_info with the name and version that
// plexus_add_plugin passes (PLEXUS_PLUGIN_NAME, PLEXUS_PLUGIN_VERSION), so
// they always match the manifest. And for a plugin with one device type:
//
//   plexus_status init(const plexus_host_api* host, void** state) {
//     return sdk::init_backend<MyDev>(host, state, "mydev", [](MyDev& d) { ...kernels... });
//   }
//   PLEXUS_SDK_PLUGIN(init, sdk::shutdown_backend<MyDev>)
#pragma once

#include <cstdint>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"

#define PLEXUS_SDK_PLUGIN(init_fn, shutdown_fn)                                              \
  PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(        \
      uint32_t, uint32_t) {                                                                  \
    static const plexus_plugin_info info = {sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR,    \
                                            PLEXUS_ABI_MINOR,           PLEXUS_PLUGIN_NAME,  \
                                            PLEXUS_PLUGIN_VERSION,      (init_fn),           \
                                            (shutdown_fn)};                                  \
    return &info;                                                                            \
  }

namespace plexus::sdk {

// An init function's body for one device type: makes an Impl (a Backend),
// registers it as `name`, then calls setup(impl) to register kernels; under
// guard(), so a failure is a status and a message. *state gets the Impl,
// which shutdown_backend<Impl> deletes (the host calls shutdown after a
// failed init too).
template <typename Impl, typename Setup>
plexus_status init_backend(const plexus_host_api* host, void** state, const char* name,
                           Setup&& setup) {
  return guard(host, [&] {
    Impl* impl = new Impl();
    *state = impl;
    impl->register_backend(host, name);
    setup(*impl);
  });
}

template <typename Impl>
void shutdown_backend(void* state) {
  delete static_cast<Impl*>(state);
}

}  // namespace plexus::sdk
