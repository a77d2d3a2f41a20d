/* A backend table for fixtures: no devices, and every required function
 * present (the host never calls the device ones when there are no devices). */
#ifndef PLEXUS_TEST_STUB_BACKEND_H_
#define PLEXUS_TEST_STUB_BACKEND_H_

#include <plexus/plugin.h>

static int32_t stub_device_count(void* u) {
  (void)u;
  return 0;
}
static plexus_status stub_get_properties(void* u, int32_t d, plexus_device_properties* out) {
  (void)u, (void)d, (void)out;
  return PLEXUS_ERROR_DEVICE;
}
static plexus_status stub_allocate(void* u, int32_t d, size_t n, void** out) {
  (void)u, (void)d, (void)n, (void)out;
  return PLEXUS_ERROR_DEVICE;
}
static void stub_deallocate(void* u, int32_t d, void* p, size_t n) {
  (void)u, (void)d, (void)p, (void)n;
}
static plexus_status stub_memset(void* u, int32_t d, void* p, size_t off, int32_t v, size_t n,
                                 void* s) {
  (void)u, (void)d, (void)p, (void)off, (void)v, (void)n, (void)s;
  return PLEXUS_ERROR_DEVICE;
}
static plexus_status stub_to_device(void* u, int32_t d, void* dst, size_t off, const void* src,
                                    size_t n, void* s) {
  (void)u, (void)d, (void)dst, (void)off, (void)src, (void)n, (void)s;
  return PLEXUS_ERROR_DEVICE;
}
static plexus_status stub_to_host(void* u, int32_t d, void* dst, const void* src, size_t off,
                                  size_t n, void* s) {
  (void)u, (void)d, (void)dst, (void)src, (void)off, (void)n, (void)s;
  return PLEXUS_ERROR_DEVICE;
}
static plexus_status stub_on_device(void* u, int32_t d, void* dst, size_t doff, const void* src,
                                    size_t soff, size_t n, void* s) {
  (void)u, (void)d, (void)dst, (void)doff, (void)src, (void)soff, (void)n, (void)s;
  return PLEXUS_ERROR_DEVICE;
}
static plexus_status stub_synchronize(void* u, int32_t d) {
  (void)u, (void)d;
  return PLEXUS_OK;
}

/* The stub table named `name`, its unavailable reason from `reason` (may be NULL). */
static plexus_backend stub_backend(const char* name, const char* (*reason)(void*)) {
  plexus_backend b = {0};
  b.struct_size = sizeof(plexus_backend);
  b.name = name;
  b.device_count = stub_device_count;
  b.unavailable_reason = reason;
  b.get_properties = stub_get_properties;
  b.allocate = stub_allocate;
  b.deallocate = stub_deallocate;
  b.memset = stub_memset;
  b.copy_host_to_device = stub_to_device;
  b.copy_device_to_host = stub_to_host;
  b.copy_device_to_device = stub_on_device;
  b.synchronize = stub_synchronize;
  return b;
}

#endif /* PLEXUS_TEST_STUB_BACKEND_H_ */
