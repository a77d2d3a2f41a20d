/* A plugin linked against libfixture_dep.so, which it looks for only beside
 * itself ($ORIGIN): without it there, dlopen fails. With it, the plugin loads
 * a no-device backend "fixture_ok" whose reason comes from the dependency. */
#include "stub_backend.h"

const char* fixture_dep_reason(void); /* from libfixture_dep.so */

static plexus_backend g_backend;

static const char* unavailable_reason(void* u) {
  (void)u;
  return fixture_dep_reason();
}

static plexus_status init(const plexus_host_api* host, void** state) {
  int32_t slot = 0;
  (void)state;
  g_backend = stub_backend("fixture_ok", unavailable_reason);
  return host->register_backend(host->host_ctx, &g_backend, &slot);
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_missing_dep",
                                          "0.1.0",
                                          init,
                                          NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
