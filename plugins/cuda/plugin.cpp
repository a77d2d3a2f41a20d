// The entry point of the gpu plugins (cuda, hip, and the simt test plugin):
// registers the device type, the library fast paths and the kernel families.
//
// Plugin options (plexus.toml, [plugins.<name>] or the host's get_option):
//   default_stream = "shared" | "per_thread"   what a NULL stream means (stream.h)
//   cublas = "off", cudnn = "off"               cuda only: use the own kernels instead
#include <memory>
#include <string>

#include "backend.h"
#include "fast_path.h"
#include "kernels.h"

namespace plexus::gpu {
namespace {

void shutdown(void* state) {
#if defined(PLEXUS_GPU_CUDA)
  remove_fast_paths();
#endif
  clear_fast_paths();
  set_backend(nullptr);
  delete static_cast<GpuBackend*>(state);
}

// Every kernel family (kernels.h).
void register_kernels(GpuBackend& b) {
  register_copy(b);
  register_binary(b);
  register_unary(b);
  register_compare(b);
  register_pointwise(b);
  register_reduce(b);
  register_matmul(b);
  register_softmax(b);
  register_layer_norm(b);
  register_pool(b);
  register_embedding(b);
  register_conv(b);
  register_shape(b);
  register_optim(b);
  register_random(b);
}

plexus_status init(const plexus_host_api* host, void** state) {
  return sdk::guard(host, [&] {
    auto policy = DefaultStreams::parse_policy(sdk::option(host, "default_stream", "shared"));
    auto b = std::make_unique<GpuBackend>(policy);
    b->register_backend(host, PLEXUS_GPU_DEVICE_TYPE);
    if (b->device_count() == 0)
      sdk::log(host, PLEXUS_LOG_INFO,
               std::string(PLEXUS_GPU_DEVICE_TYPE ": no devices: ") + b->unavailable_reason());
    // From here on the host calls shutdown(*state) if init fails.
    set_backend(b.get());
    *state = b.release();
#if defined(PLEXUS_GPU_CUDA)
    install_fast_paths(host);
#endif
    register_kernels(backend());
  });
}

const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                   PLEXUS_ABI_MAJOR,
                                   PLEXUS_ABI_MINOR,
                                   PLEXUS_PLUGIN_NAME,
                                   PLEXUS_PLUGIN_VERSION,
                                   init,
                                   shutdown};

}  // namespace
}  // namespace plexus::gpu

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t,
                                                                                   uint32_t) {
  return &plexus::gpu::g_info;
}
