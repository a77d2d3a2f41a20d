/* bench_abi: the smallest plugin that serves a kernel, for measuring what a
 * call through the C ABI costs. It adds kernels to the cpu device type (whose
 * memory stays the core's): a 1-element f32 add.out. */
#include <string.h>

#include "plexus/plugin.h"

static int32_t device_count(void* u) {
  (void)u;
  return 1;
}
static plexus_status properties(void* u, int32_t d, plexus_device_properties* p) {
  (void)u, (void)d;
  strcpy(p->name, "host");
  p->kind = PLEXUS_DEVICE_KIND_CPU;
  return PLEXUS_OK;
}
/* The core owns host memory: these are never called for the cpu slot. */
static plexus_status unused_alloc(void* u, int32_t d, size_t n, void** out) {
  (void)u, (void)d, (void)n, (void)out;
  return PLEXUS_ERROR_UNSUPPORTED;
}
static void unused_free(void* u, int32_t d, void* p, size_t n) { (void)u, (void)d, (void)p, (void)n; }
static plexus_status unused_memset(void* u, int32_t d, void* p, size_t o, int32_t v, size_t n,
                                   void* s) {
  (void)u, (void)d, (void)p, (void)o, (void)v, (void)n, (void)s;
  return PLEXUS_ERROR_UNSUPPORTED;
}
static plexus_status unused_h2d(void* u, int32_t d, void* dst, size_t o, const void* src, size_t n,
                                void* s) {
  (void)u, (void)d, (void)dst, (void)o, (void)src, (void)n, (void)s;
  return PLEXUS_ERROR_UNSUPPORTED;
}
static plexus_status unused_d2h(void* u, int32_t d, void* dst, const void* src, size_t o, size_t n,
                                void* s) {
  (void)u, (void)d, (void)dst, (void)o, (void)src, (void)n, (void)s;
  return PLEXUS_ERROR_UNSUPPORTED;
}
static plexus_status unused_d2d(void* u, int32_t d, void* dst, size_t dof, const void* src,
                                size_t sof, size_t n, void* s) {
  (void)u, (void)d, (void)dst, (void)dof, (void)src, (void)sof, (void)n, (void)s;
  return PLEXUS_ERROR_UNSUPPORTED;
}
static plexus_status sync(void* u, int32_t d) {
  (void)u, (void)d;
  return PLEXUS_OK;
}

static float* at(const plexus_tensor* t) { return (float*)t->storage + t->offset; }

/* add.out(self, other, *, alpha, out) for 1-element f32: the least a kernel can do. */
static plexus_status add_kernel(void* user_data, const plexus_kernel_call* c) {
  (void)user_data;
  *at(c->args[3].u.tensor) = *at(c->args[0].u.tensor) + *at(c->args[1].u.tensor);
  return PLEXUS_OK;
}

static plexus_backend g_backend;

static plexus_status init(const plexus_host_api* host, void** state) {
  int32_t slot = -1;
  plexus_status st;
  (void)state;
  memset(&g_backend, 0, sizeof g_backend);
  g_backend.struct_size = sizeof g_backend;
  g_backend.name = "cpu";
  g_backend.device_count = device_count;
  g_backend.get_properties = properties;
  g_backend.allocate = unused_alloc;
  g_backend.deallocate = unused_free;
  g_backend.memset = unused_memset;
  g_backend.copy_host_to_device = unused_h2d;
  g_backend.copy_device_to_host = unused_d2h;
  g_backend.copy_device_to_device = unused_d2d;
  g_backend.synchronize = sync;
  if ((st = host->register_backend(host->host_ctx, &g_backend, &slot)) != PLEXUS_OK) return st;
  return host->register_kernel(host->host_ctx, slot, "add.out", PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32),
                               add_kernel, NULL);
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR, "bench_abi", "0.1.0", init, NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t major,
                                                                                   uint32_t minor) {
  (void)major, (void)minor;
  return &g_info;
}
