// The backend object's life (the devices, default streams and pools it owns),
// kernel registration, and the lookup of the stream a call or copy runs on.
#include "backend.h"

#include "fast_path.h"

namespace plexus::gpu {
namespace {

// Pinned staging per device: 8 chunks of 4 MiB keep a large upload's memcpy
// and DMA overlapping while bounding the pinned memory to 32 MiB.
constexpr size_t kStagingChunk = size_t{4} << 20;
constexpr size_t kStagingChunks = 8;

GpuBackend* g_backend = nullptr;

}  // namespace

GpuBackend& backend() {
  if (!g_backend)
    sdk::fail(PLEXUS_ERROR_INTERNAL, PLEXUS_GPU_DEVICE_TYPE " plugin used before init");
  return *g_backend;
}
void set_backend(GpuBackend* b) {
  g_backend = b;
}

GpuBackend::GpuBackend(DefaultStreams::Policy policy)
    : streams_(devices_.count(), policy),
      staging_(devices_.count(), kStagingChunk, kStagingChunks),
      workspaces_(devices_.count()) {}

GpuBackend::~GpuBackend() = default;

void GpuBackend::register_kernel(const char* op, uint32_t dtype_mask, plexus_kernel_fn fn,
                                 void* user_data) {
  KernelRef k = route(op, KernelRef{fn, user_data}, host());
  sdk::Backend<GpuBackend>::register_kernel(op, dtype_mask, k.fn, k.user_data);
}

gpuStream_t GpuBackend::resolve(int32_t device, void* stream, const char* what) {
  devices_.check_index(device, what);
  use_device(device);
  return stream ? static_cast<gpuStream_t>(stream) : streams_.get(device);
}

}  // namespace plexus::gpu
