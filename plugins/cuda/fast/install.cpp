// Which library fast paths the cuda plugin installs: those it was built with
// (PLEXUS_CUDA_CUBLAS, PLEXUS_CUDA_CUDNN) unless the plugin option turns
// them off ("cublas" / "cudnn" = "off").
#include <string>

#include "fast/fast.h"
#include "fast_path.h"

namespace plexus::gpu {
namespace {

// True unless option `key` is "off"; anything but "on"/"off" is refused.
bool enabled(const plexus_host_api* host, const char* key) {
  std::string v = sdk::option(host, key, "on");
  if (v == "on") return true;
  if (v == "off") return false;
  sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
            std::string("option ") + key + " = '" + v + "': expected 'on' or 'off'");
}

}  // namespace

void install_fast_paths(const plexus_host_api* host) {
  bool blas = enabled(host, "cublas"), dnn = enabled(host, "cudnn");
#if defined(PLEXUS_CUDA_WITH_CUBLAS)
  if (blas) install_cublas(host);
#else
  (void)blas;
#endif
#if defined(PLEXUS_CUDA_WITH_CUDNN)
  if (dnn) install_cudnn(host);
#else
  (void)dnn;
#endif
}

void remove_fast_paths() {
#if defined(PLEXUS_CUDA_WITH_CUBLAS)
  remove_cublas();
#endif
#if defined(PLEXUS_CUDA_WITH_CUDNN)
  remove_cudnn();
#endif
}

}  // namespace plexus::gpu
