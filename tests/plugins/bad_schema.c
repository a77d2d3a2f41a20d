/* A plugin whose init defines an op with a malformed schema (the argument
 * list is never closed). It returns the host's status, so the schema
 * parser's message is the reason its load fails. */
#include <plexus/plugin.h>

static plexus_status init(const plexus_host_api* host, void** state) {
  (void)state;
  return host->define_op(host->host_ctx, "fixture_bad_schema::twice(Tensor self -> Tensor");
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_bad_schema",
                                          "0.1.0",
                                          init,
                                          NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
