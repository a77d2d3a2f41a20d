/* A plugin built against the frozen ABI 1.0 header (tests/plugins/abi-1.0),
 * not the live one: the proof that a 1.0 plugin keeps loading and working as
 * plugin.h grows. Its backend "fixture_abi10" has one device whose memory is
 * host memory from malloc, and an add.out kernel for contiguous f32 tensors. */
#include <plexus/plugin.h>
#include <stdlib.h>
#include <string.h>

#if PLEXUS_ABI_MAJOR != 1 || PLEXUS_ABI_MINOR != 0
#error "fixture_abi10 must be compiled against the frozen ABI 1.0 header"
#endif

static const plexus_host_api* g_host;
static plexus_backend g_backend;

static void set_error(const char* message) {
  g_host->set_error_message(g_host->host_ctx, message);
}

static unsigned char* at(const void* ptr, size_t offset) {
  return (unsigned char*)ptr + offset;
}

/* ---- The device: one, with malloc'd memory ---------------------------- */

static int32_t device_count(void* u) {
  (void)u;
  return 1;
}

static plexus_status get_properties(void* u, int32_t d, plexus_device_properties* out) {
  (void)u, (void)d;
  strcpy(out->name, "fixture ABI 1.0 device");
  strcpy(out->vendor, "plexus tests");
  out->kind = PLEXUS_DEVICE_KIND_EMULATED;
  out->capabilities = PLEXUS_CAP_HOST_ADDRESSABLE;
  out->dtypes = (1u << PLEXUS_NUM_DTYPES) - 1;
  return PLEXUS_OK;
}

static plexus_status allocate(void* u, int32_t d, size_t n, void** out) {
  (void)u, (void)d;
  *out = malloc(n);
  if (*out != NULL) return PLEXUS_OK;
  set_error("fixture_abi10: malloc failed");
  return PLEXUS_ERROR_OUT_OF_MEMORY;
}

static void deallocate(void* u, int32_t d, void* p, size_t n) {
  (void)u, (void)d, (void)n;
  free(p);
}

static plexus_status set_bytes(void* u, int32_t d, void* p, size_t off, int32_t v, size_t n,
                               void* s) {
  (void)u, (void)d, (void)s;
  memset(at(p, off), v, n);
  return PLEXUS_OK;
}

static plexus_status to_device(void* u, int32_t d, void* dst, size_t off, const void* src, size_t n,
                               void* s) {
  (void)u, (void)d, (void)s;
  memcpy(at(dst, off), src, n);
  return PLEXUS_OK;
}

static plexus_status to_host(void* u, int32_t d, void* dst, const void* src, size_t off, size_t n,
                             void* s) {
  (void)u, (void)d, (void)s;
  memcpy(dst, at(src, off), n);
  return PLEXUS_OK;
}

static plexus_status on_device(void* u, int32_t d, void* dst, size_t doff, const void* src,
                               size_t soff, size_t n, void* s) {
  (void)u, (void)d, (void)s;
  memcpy(at(dst, doff), at(src, soff), n);
  return PLEXUS_OK;
}

static plexus_status synchronize(void* u, int32_t d) {
  (void)u, (void)d;
  return PLEXUS_OK;
}

/* ---- add.out for contiguous f32 ---------------------------------------- */

static int is_contiguous(const plexus_tensor* t) {
  int64_t expected = 1;
  int32_t d;
  for (d = t->ndim - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expected) return 0;
    expected *= t->sizes[d];
  }
  return 1;
}

static int64_t numel(const plexus_tensor* t) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < t->ndim; ++d) n *= t->sizes[d];
  return n;
}

static float* f32(const plexus_tensor* t) {
  return (float*)t->storage + t->offset;
}

/* add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out):
 * out = self + alpha * other. */
static plexus_status add_out(void* u, const plexus_kernel_call* call) {
  const plexus_tensor* self = call->args[0].u.tensor;
  const plexus_tensor* other = call->args[1].u.tensor;
  const plexus_scalar* alpha = &call->args[2].u.scalar;
  const plexus_tensor* out = call->args[3].u.tensor;
  float a = alpha->kind == PLEXUS_SCALAR_FLOAT ? (float)alpha->v.f : (float)alpha->v.i;
  int64_t i, n = numel(out);
  (void)u;
  if (!is_contiguous(self) || !is_contiguous(other) || !is_contiguous(out)) {
    set_error("fixture_abi10: add.out takes contiguous tensors only");
    return PLEXUS_ERROR_UNSUPPORTED;
  }
  for (i = 0; i < n; ++i) f32(out)[i] = f32(self)[i] + a * f32(other)[i];
  return PLEXUS_OK;
}

/* ---- The plugin --------------------------------------------------------- */

static plexus_status init(const plexus_host_api* host, void** state) {
  plexus_backend b = {0};
  int32_t slot = 0;
  plexus_status st;
  (void)state;
  g_host = host;
  b.struct_size = sizeof(plexus_backend);
  b.name = "fixture_abi10";
  b.device_count = device_count;
  b.get_properties = get_properties;
  b.allocate = allocate;
  b.deallocate = deallocate;
  b.memset = set_bytes;
  b.copy_host_to_device = to_device;
  b.copy_device_to_host = to_host;
  b.copy_device_to_device = on_device;
  b.synchronize = synchronize;
  g_backend = b;
  st = host->register_backend(host->host_ctx, &g_backend, &slot);
  if (st != PLEXUS_OK) return st;
  return host->register_kernel(host->host_ctx, slot, "add.out", PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32),
                               add_out, NULL);
}

static const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                          PLEXUS_ABI_MAJOR,
                                          PLEXUS_ABI_MINOR,
                                          "fixture_abi10",
                                          "0.1.0",
                                          init,
                                          NULL};

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(
    uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &g_info;
}
