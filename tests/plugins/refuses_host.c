/* A plugin whose entry point refuses every host by returning NULL. */
#include <plexus/plugin.h>

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return NULL;
}
