// The cpu plugin's entry point: init registers the "cpu" device type (a
// CpuBackend) and its kernels; shutdown deletes the backend.
#include <dlfcn.h>

#include "kernels.h"

namespace plexus::cpu {
namespace {

// oneDNN's OpenMP worker threads outlive any call into this library, so the
// library must stay mapped after the host unloads it (dlclose would pull code
// from under those threads at exit). RTLD_NODELETE on ourselves does that.
void stay_resident() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&stay_resident), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

plexus_status init(const plexus_host_api* host, void** state) {
  stay_resident();
  return sdk::guard(host, [&] {
    auto* backend = new CpuBackend();
    *state = backend;  // shutdown deletes it, after a failed init too
    backend->register_backend(host, "cpu", 0, graph_extension(host));
    register_copy(*backend);
    register_binary(*backend);
    register_unary(*backend);
    register_compare(*backend);
    register_pointwise(*backend);
    register_reduce(*backend);
    register_matmul(*backend);
    register_softmax(*backend);
    register_layer_norm(*backend);
    register_pool(*backend);
    register_embedding(*backend);
    register_conv(*backend);
    register_shape(*backend);
    register_optim(*backend);
    register_random(*backend);
  });
}

void shutdown(void* state) {
  delete static_cast<CpuBackend*>(state);
}

const plexus_plugin_info g_info = {sizeof(plexus_plugin_info),
                                   PLEXUS_ABI_MAJOR,
                                   PLEXUS_ABI_MINOR,
                                   PLEXUS_PLUGIN_NAME,
                                   PLEXUS_PLUGIN_VERSION,
                                   init,
                                   shutdown};

}  // namespace
}  // namespace plexus::cpu

PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const plexus_plugin_info* plexus_plugin_entry(uint32_t,
                                                                                   uint32_t) {
  return &plexus::cpu::g_info;
}
