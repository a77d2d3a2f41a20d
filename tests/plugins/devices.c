/* A plugin whose devices are set by its options, for the Runtime's device
 * choice tests (tests/dispatcher/test_runtime.cpp): "count" devices (default 2)
 * of "kind" (cpu, gpu, emulated, accelerator; default gpu), each with
 * "memory_mb" MiB (default 1024); "present" = "false" gives 0 devices and a
 * reason. Devices hold no memory: allocate fails.
 * Built under several names (FIXTURE_NAME = backend name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub_backend.h"

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture_devices"
#endif

static int32_t g_count;
static int32_t g_kind;
static uint64_t g_memory;
static plexus_backend g_backend;

static const char* unavailable_reason(void* u) {
  (void)u;
  return g_count == 0 ? FIXTURE_NAME " is switched off (present = false)" : NULL;
}

static int32_t device_count(void* u) {
  (void)u;
  return g_count;
}

static plexus_status get_properties(void* u, int32_t d, plexus_device_properties* out) {
  (void)u;
  if (d < 0 || d >= g_count) return PLEXUS_ERROR_INVALID_ARGUMENT;
  snprintf(out->name, sizeof(out->name), "%s device %d", FIXTURE_NAME, (int)d);
  snprintf(out->vendor, sizeof(out->vendor), "plexus tests");
  out->kind = g_kind;
  out->total_memory = g_memory;
  return PLEXUS_OK;
}

static int32_t parse_kind(const char* text) {
  if (text == NULL || strcmp(text, "gpu") == 0) return PLEXUS_DEVICE_KIND_GPU;
  if (strcmp(text, "cpu") == 0) return PLEXUS_DEVICE_KIND_CPU;
  if (strcmp(text, "emulated") == 0) return PLEXUS_DEVICE_KIND_EMULATED;
  return PLEXUS_DEVICE_KIND_ACCELERATOR;
}

static plexus_status init(const plexus_host_api* host, void** state) {
  const char* count = host->get_option(host->host_ctx, "count");
  const char* memory = host->get_option(host->host_ctx, "memory_mb");
  const char* present = host->get_option(host->host_ctx, "present");
  int32_t slot = 0;
  (void)state;
  g_count = count != NULL ? atoi(count) : 2;
  if (present != NULL && strcmp(present, "false") == 0) g_count = 0;
  g_kind = parse_kind(host->get_option(host->host_ctx, "kind"));
  g_memory = (uint64_t)(memory != NULL ? atoll(memory) : 1024) << 20;
  g_backend = stub_backend(FIXTURE_NAME, unavailable_reason);
  g_backend.device_count = device_count;
  g_backend.get_properties = get_properties;
  return host->register_backend(host->host_ctx, &g_backend, &slot);
}

static void shutdown(void* state) {
  (void)state;
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          FIXTURE_NAME,
                                          "0.1.0",
                                          init,
                                          shutdown};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
