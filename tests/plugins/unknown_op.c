/* A plugin whose init registers a backend, then a kernel for an op the host
 * does not know. It returns the host's status, so the host's message (naming
 * the op) is the reason its load fails. */
#include "stub_backend.h"

static plexus_backend g_backend;

static plexus_status no_kernel(void* user_data, const plexus_kernel_call* call) {
  (void)user_data, (void)call;
  return PLEXUS_ERROR_INTERNAL;
}

static plexus_status init(const plexus_host_api* host, void** state) {
  int32_t slot = 0;
  plexus_status st;
  (void)state;
  g_backend = stub_backend("fixture_broken", NULL);
  st = host->register_backend(host->host_ctx, &g_backend, &slot);
  if (st != PLEXUS_OK) return st;
  return host->register_kernel(host->host_ctx, slot, "no_such_op.out",
                               PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32), no_kernel, NULL);
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_unknown_op",
                                          "0.1.0",
                                          init,
                                          NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
