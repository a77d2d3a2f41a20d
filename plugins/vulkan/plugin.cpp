// The vulkan plugin's entry point: opens the Vulkan devices and registers the
// "vulkan" device type and its kernels.
#include <memory>

#include "kernels.h"

namespace plexus::vulkan {
namespace {

std::unique_ptr<VulkanBackend> g_backend;

plexus_status init(const plexus_host_api* host, void**) {
  return sdk::guard(host, [&] {
    g_backend = std::make_unique<VulkanBackend>(host);
    g_backend->register_backend(host, "vulkan", 0, graph_extension(host, *g_backend));
    register_copy(*g_backend);
    register_binary(*g_backend);
    register_unary(*g_backend);
    register_compare(*g_backend);
    register_pointwise(*g_backend);
    register_matmul(*g_backend);
    register_reduce(*g_backend);
    register_softmax(*g_backend);
    register_layer_norm(*g_backend);
    register_pool(*g_backend);
    register_embedding(*g_backend);
    register_conv(*g_backend);
    register_shape(*g_backend);
    register_optim(*g_backend);
    register_random(*g_backend);
  });
}

void shutdown(void*) {
  g_backend.reset();
}

const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                   PLEXUS_ABI_MAJOR,
                                   PLEXUS_ABI_MINOR,
                                   PLEXUS_PLUGIN_NAME,
                                   PLEXUS_PLUGIN_VERSION,
                                   init,
                                   shutdown};

}  // namespace
}  // namespace plexus::vulkan

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t,
                                                                                   uint32_t) {
  return &plexus::vulkan::g_info;
}
