/* A plugin whose init registers a backend, then fails with a message: the
 * host must report the message, undo the registration, and unload it. */
#include "stub_backend.h"

static plexus_backend g_backend;

static plexus_status init(const plexus_host_api* host, void** state) {
  int32_t slot = 0;
  (void)state;
  g_backend = stub_backend("fixture_init_fails", NULL);
  if (host->register_backend(host->host_ctx, &g_backend, &slot) != PLEXUS_OK)
    return PLEXUS_ERROR_INTERNAL;
  host->set_error_message(host->host_ctx, "the fixture widget driver is missing");
  return PLEXUS_ERROR_DEVICE;
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_init_fails",
                                          "0.1.0",
                                          init,
                                          NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
