/* A good minimal plugin: one backend, "fixture_ok", that has no devices and
 * says why. Built under other plugin names (FIXTURE_NAME), backend names
 * (FIXTURE_BACKEND) and ABI versions (FIXTURE_ABI_MAJOR, FIXTURE_ABI_MINOR) for
 * fixtures that disagree with their manifests or with each other.
 * Options: "reason" replaces the unavailable reason; "shutdown_marker" is a
 * file that shutdown creates, so tests can see it ran. */
#include <stdio.h>

#include "stub_backend.h"

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture_ok"
#endif
#ifndef FIXTURE_BACKEND
#define FIXTURE_BACKEND "fixture_ok"
#endif
#ifndef FIXTURE_ABI_MAJOR
#define FIXTURE_ABI_MAJOR PLEXUS_ABI_MAJOR
#endif
#ifndef FIXTURE_ABI_MINOR
#define FIXTURE_ABI_MINOR PLEXUS_ABI_MINOR
#endif

static const char* const kDefaultReason = "fixture hardware is not present";
static const char* g_reason;
static const char* g_shutdown_marker;
static plexus_backend g_backend;

static const char* unavailable_reason(void* u) {
  (void)u;
  return g_reason;
}

static plexus_status init(const plexus_host_api* host, void** state) {
  const char* reason = host->get_option(host->host_ctx, "reason");
  int32_t slot = 0;
  (void)state;
  g_reason = reason != NULL ? reason : kDefaultReason;
  g_shutdown_marker = host->get_option(host->host_ctx, "shutdown_marker");
  g_backend = stub_backend(FIXTURE_BACKEND, unavailable_reason);
  return host->register_backend(host->host_ctx, &g_backend, &slot);
}

static void shutdown(void* state) {
  FILE* f = g_shutdown_marker != NULL ? fopen(g_shutdown_marker, "w") : NULL;
  (void)state;
  if (f != NULL) fclose(f);
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          FIXTURE_ABI_MAJOR,
                                          FIXTURE_ABI_MINOR,
                                          FIXTURE_NAME,
                                          "0.1.0",
                                          init,
                                          shutdown};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
