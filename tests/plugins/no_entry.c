/* A shared library that is not a plugin: it exports no plexus_plugin_entry. */
#include <plexus/plugin.h>

PLEXUS_PLUGIN_EXPORT int plexus_plugin_entry_misspelled(void) {
  return 0;
}
