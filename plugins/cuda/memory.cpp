// The backend's memory functions: raw device allocation (the core's caching
// allocator sits above it), memset and copies; and Workspace (memory.h).
#include <string>

#include "backend.h"
#include "errors.h"

namespace plexus::gpu {
namespace {

char* at(void* p, size_t offset) {
  return static_cast<char*>(p) + offset;
}
const char* at(const void* p, size_t offset) {
  return static_cast<const char*>(p) + offset;
}

}  // namespace

void* GpuBackend::allocate(int32_t device, size_t nbytes) {
  devices_.check_index(device, "allocate");
  use_device(device);
  void* p = nullptr;
  gpuError_t e = gpuMalloc(&p, nbytes);
  if (e != gpuSuccess)
    fail_gpu(e, device, PLEXUS_GPU_PREFIX "Malloc of " + std::to_string(nbytes) + " bytes");
  return p;
}

void GpuBackend::deallocate(int32_t device, void* ptr, size_t) {
  devices_.check_index(device, "deallocate");
  use_device(device);
  // The ABI lets the host free memory whose work is only queued; the core's
  // cache makes this rare, so waiting for the device here is cheap overall.
  check_gpu(gpuDeviceSynchronize(), device, PLEXUS_GPU_PREFIX "DeviceSynchronize (before free)");
  check_gpu(gpuFree(ptr), device, PLEXUS_GPU_PREFIX "Free");
}

void GpuBackend::memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes,
                        void* stream) {
  gpuStream_t s = resolve(device, stream, "memset");
  if (nbytes == 0) return;
  check_gpu(gpuMemsetAsync(at(ptr, offset), value, nbytes, s), device,
            PLEXUS_GPU_PREFIX "MemsetAsync");
}

void GpuBackend::copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                                     size_t nbytes, void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_host_to_device");
  if (nbytes == 0) return;
  staging_.copy_to_device(device, at(dst, dst_offset), src, nbytes, s);
}

void GpuBackend::copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                                     size_t nbytes, void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_device_to_host");
  if (nbytes == 0) return;
  check_gpu(gpuMemcpyAsync(dst, at(src, src_offset), nbytes, gpuMemcpyDeviceToHost, s), device,
            PLEXUS_GPU_PREFIX "MemcpyAsync (device to host)");
  check_gpu(gpuStreamSynchronize(s), device,
            PLEXUS_GPU_PREFIX "StreamSynchronize (device to host)");
}

void GpuBackend::copy_device_to_device(int32_t device, void* dst, size_t dst_offset,
                                       const void* src, size_t src_offset, size_t nbytes,
                                       void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_device_to_device");
  if (nbytes == 0) return;
  check_gpu(
      gpuMemcpyAsync(at(dst, dst_offset), at(src, src_offset), nbytes, gpuMemcpyDeviceToDevice, s),
      device, PLEXUS_GPU_PREFIX "MemcpyAsync (device to device)");
}

Workspace::Workspace(const plexus_kernel_call& call, size_t nbytes)
    : device_(call.device_index), stream_(stream_of(call)) {
  if (nbytes == 0) return;
  ptr_ = backend().workspaces().acquire(device_, stream_, nbytes, &size_);
}

Workspace::~Workspace() {
  if (ptr_) backend().workspaces().release(device_, stream_, ptr_);
}

}  // namespace plexus::gpu
