// The plugin's entry point: what it is (plexus_plugin_info), init (the device
// type and its kernels) and shutdown. PLEXUS_PLUGIN_NAME and
// PLEXUS_PLUGIN_VERSION come from plexus_add_plugin, so they match the manifest.
#include <string>

#include "kernels.h"

namespace toydev {
namespace {

// A per-plugin option as a number in [low, high], or `fallback` when unset.
long option_number(const plexus_host_api* host, const char* key, long fallback, long low,
                   long high) {
  std::string v = sdk::option(host, key);
  if (v.empty()) return fallback;
  size_t used = 0;
  long n = 0;
  try {
    n = std::stol(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n < low || n > high)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "toydev: option {} is '{}'; expected a number from {} to {}", key, v, low, high);
  return n;
}

plexus_status init(const plexus_host_api* host, void** state) {
  return sdk::guard(host, [&] {
    long devices = option_number(host, "devices", 2, 0, 16);
    long mib = option_number(host, "memory_mib", 256, 1, 1 << 20);
    auto* backend = new ToyBackend(static_cast<int32_t>(devices), size_t(mib) << 20);
    *state = backend;  // shutdown deletes it, after a failed init too
    backend->register_backend(host, "toydev");
    register_binary_kernels(*backend);
    register_unary_kernels(*backend);
    register_copy_kernels(*backend);
    register_reduce_kernels(*backend);
  });
}

void shutdown(void* state) {
  delete static_cast<ToyBackend*>(state);
}

}  // namespace
}  // namespace toydev

extern "C" PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t, uint32_t) {
  static const plexus_plugin_info info = {
      sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR, PLEXUS_ABI_MINOR, PLEXUS_PLUGIN_NAME,
      PLEXUS_PLUGIN_VERSION,      &toydev::init,    &toydev::shutdown};
  return &info;
}
