// The cpu plugin's entry point: registers the "cpu" device type's kernels.
// Host memory stays the core's (the host ignores this table's memory
// functions for the cpu slot); they are still real, for completeness.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "kernels.h"

namespace plexus::cpu {
namespace {

int32_t device_count(void*) {
  return 1;
}

plexus_status properties(void*, int32_t, plexus_device_properties* p) {
  std::snprintf(p->name, sizeof(p->name), "host cpu (%u threads)",
                std::thread::hardware_concurrency());
  std::snprintf(p->vendor, sizeof(p->vendor), "plexus cpu plugin (oneDNN)");
  p->kind = PLEXUS_DEVICE_KIND_CPU;
  p->capabilities = PLEXUS_CAP_HOST_ADDRESSABLE;
  p->dtypes = (1u << PLEXUS_NUM_DTYPES) - 1;
  return PLEXUS_OK;
}

plexus_status allocate(void*, int32_t, size_t n, void** out) {
  *out = std::aligned_alloc(64, (n + 63) / 64 * 64);
  return *out ? PLEXUS_OK : PLEXUS_ERROR_OUT_OF_MEMORY;
}
void deallocate(void*, int32_t, void* p, size_t) {
  std::free(p);
}
plexus_status fill_bytes(void*, int32_t, void* p, size_t off, int32_t v, size_t n, void*) {
  std::memset(static_cast<char*>(p) + off, v, n);
  return PLEXUS_OK;
}
plexus_status h2d(void*, int32_t, void* dst, size_t off, const void* src, size_t n, void*) {
  std::memcpy(static_cast<char*>(dst) + off, src, n);
  return PLEXUS_OK;
}
plexus_status d2h(void*, int32_t, void* dst, const void* src, size_t off, size_t n, void*) {
  std::memcpy(dst, static_cast<const char*>(src) + off, n);
  return PLEXUS_OK;
}
plexus_status d2d(void*, int32_t, void* dst, size_t doff, const void* src, size_t soff, size_t n,
                  void*) {
  std::memcpy(static_cast<char*>(dst) + doff, static_cast<const char*>(src) + soff, n);
  return PLEXUS_OK;
}
plexus_status synchronize(void*, int32_t) {
  return PLEXUS_OK;
}  // kernels finish before returning

plexus_backend make_table() {
  plexus_backend b{};
  b.struct_size = sizeof(b);
  b.name = "cpu";
  b.device_count = device_count;
  b.get_properties = properties;
  b.allocate = allocate;
  b.deallocate = deallocate;
  b.memset = fill_bytes;
  b.copy_host_to_device = h2d;
  b.copy_device_to_host = d2h;
  b.copy_device_to_device = d2d;
  b.synchronize = synchronize;
  return b;
}

plexus_backend g_table = make_table();

// oneDNN's OpenMP worker threads outlive any call into this library, so the
// library must stay mapped after the host unloads it (dlclose would pull code
// from under those threads at exit). RTLD_NODELETE on ourselves does that.
void stay_resident() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&stay_resident), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

plexus_status init(const plexus_host_api* host, void**) {
  stay_resident();
  return sdk::guard(host, [&] {
    int32_t slot = -1;
    sdk::check(host->register_backend(host->host_ctx, &g_table, &slot), "register_backend(cpu)");
    Registrar r{host, slot};
    register_copy(r);
    register_binary(r);
    register_unary(r);
    register_compare(r);
    register_pointwise(r);
    register_reduce(r);
    register_matmul(r);
    register_softmax(r);
    register_layer_norm(r);
    register_pool(r);
    register_embedding(r);
    register_conv(r);
    register_shape(r);
  });
}

const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                   PLEXUS_ABI_MAJOR,
                                   PLEXUS_ABI_MINOR,
                                   PLEXUS_PLUGIN_NAME,
                                   PLEXUS_PLUGIN_VERSION,
                                   init,
                                   nullptr};

}  // namespace
}  // namespace plexus::cpu

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t,
                                                                                   uint32_t) {
  return &plexus::cpu::g_info;
}
