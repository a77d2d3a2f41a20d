#include "runtime.h"

#include <string>

#include "errors.h"

namespace plexus::gpu {
namespace {

// Pinned staging per device: 8 chunks of 4 MiB keep a large upload's memcpy
// and DMA overlapping while bounding the pinned memory to 32 MiB.
constexpr size_t kStagingChunk = size_t{4} << 20;
constexpr size_t kStagingChunks = 8;

Runtime* g_runtime = nullptr;

char* at(void* p, size_t offset) {
  return static_cast<char*>(p) + offset;
}
const char* at(const void* p, size_t offset) {
  return static_cast<const char*>(p) + offset;
}

void require(const void* handle, const char* what) {
  if (!handle) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, std::string(what) + ": the handle is NULL");
}

}  // namespace

Runtime& runtime() {
  if (!g_runtime) sdk::fail(PLEXUS_ERROR_INTERNAL, PLEXUS_PLUGIN_NAME " plugin used before init");
  return *g_runtime;
}
void set_runtime(Runtime* r) {
  g_runtime = r;
}

Runtime::Runtime(DefaultStreams::Policy policy)
    : streams_(devices_.count(), policy),
      staging_(devices_.count(), kStagingChunk, kStagingChunks),
      workspaces_(devices_.count()) {}

Runtime::~Runtime() = default;

void Runtime::properties(int32_t device, plexus_device_properties& out) {
  devices_.properties(device, out);
}

gpuStream_t Runtime::resolve(int32_t device, void* stream, const char* what) {
  devices_.check_index(device, what);
  use_device(device);
  return stream ? static_cast<gpuStream_t>(stream) : streams_.get(device);
}

void* Runtime::allocate(int32_t device, size_t nbytes) {
  devices_.check_index(device, "allocate");
  use_device(device);
  void* p = nullptr;
  gpuError_t e = gpuMalloc(&p, nbytes);
  if (e != gpuSuccess)
    fail_gpu(e, device, PLEXUS_GPU_PREFIX "Malloc of " + std::to_string(nbytes) + " bytes");
  return p;
}

void Runtime::deallocate(int32_t device, void* ptr, size_t) {
  devices_.check_index(device, "deallocate");
  use_device(device);
  // The ABI lets the host free memory whose work is only queued; the core's
  // cache makes this rare, so waiting for the device here is cheap overall.
  check_gpu(gpuDeviceSynchronize(), device, PLEXUS_GPU_PREFIX "DeviceSynchronize (before free)");
  check_gpu(gpuFree(ptr), device, PLEXUS_GPU_PREFIX "Free");
}

void Runtime::memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes,
                     void* stream) {
  gpuStream_t s = resolve(device, stream, "memset");
  if (nbytes == 0) return;
  check_gpu(gpuMemsetAsync(at(ptr, offset), value, nbytes, s), device,
            PLEXUS_GPU_PREFIX "MemsetAsync");
}

void Runtime::copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                                  size_t nbytes, void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_host_to_device");
  if (nbytes == 0) return;
  staging_.copy_to_device(device, at(dst, dst_offset), src, nbytes, s);
}

void Runtime::copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                                  size_t nbytes, void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_device_to_host");
  if (nbytes == 0) return;
  check_gpu(gpuMemcpyAsync(dst, at(src, src_offset), nbytes, gpuMemcpyDeviceToHost, s), device,
            PLEXUS_GPU_PREFIX "MemcpyAsync (device to host)");
  check_gpu(gpuStreamSynchronize(s), device,
            PLEXUS_GPU_PREFIX "StreamSynchronize (device to host)");
}

void Runtime::copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                                    size_t src_offset, size_t nbytes, void* stream) {
  gpuStream_t s = resolve(device, stream, "copy_device_to_device");
  if (nbytes == 0) return;
  check_gpu(
      gpuMemcpyAsync(at(dst, dst_offset), at(src, src_offset), nbytes, gpuMemcpyDeviceToDevice, s),
      device, PLEXUS_GPU_PREFIX "MemcpyAsync (device to device)");
}

void Runtime::synchronize(int32_t device) {
  devices_.check_index(device, "synchronize");
  use_device(device);
  check_gpu(gpuDeviceSynchronize(), device, PLEXUS_GPU_PREFIX "DeviceSynchronize");
}

void* Runtime::stream_create(int32_t device) {
  devices_.check_index(device, "stream_create");
  use_device(device);
  gpuStream_t s = nullptr;
  check_gpu(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking), device,
            PLEXUS_GPU_PREFIX "StreamCreateWithFlags");
  return s;
}

void Runtime::stream_destroy(int32_t device, void* stream) {
  if (!stream) return;  // the default stream is the runtime's own
  devices_.check_index(device, "stream_destroy");
  use_device(device);
  check_gpu(gpuStreamDestroy(static_cast<gpuStream_t>(stream)), device,
            PLEXUS_GPU_PREFIX "StreamDestroy");
}

void Runtime::stream_synchronize(int32_t device, void* stream) {
  gpuStream_t s = resolve(device, stream, "stream_synchronize");
  check_gpu(gpuStreamSynchronize(s), device, PLEXUS_GPU_PREFIX "StreamSynchronize");
}

void* Runtime::event_create(int32_t device) {
  devices_.check_index(device, "event_create");
  use_device(device);
  gpuEvent_t e = nullptr;
  check_gpu(gpuEventCreateWithFlags(&e, gpuEventDisableTiming), device,
            PLEXUS_GPU_PREFIX "EventCreateWithFlags");
  return e;
}

void Runtime::event_destroy(int32_t device, void* event) {
  if (!event) return;
  devices_.check_index(device, "event_destroy");
  use_device(device);
  check_gpu(gpuEventDestroy(static_cast<gpuEvent_t>(event)), device,
            PLEXUS_GPU_PREFIX "EventDestroy");
}

void Runtime::event_record(int32_t device, void* event, void* stream) {
  require(event, "event_record");
  gpuStream_t s = resolve(device, stream, "event_record");
  check_gpu(gpuEventRecord(static_cast<gpuEvent_t>(event), s), device,
            PLEXUS_GPU_PREFIX "EventRecord");
}

void Runtime::event_wait(int32_t device, void* event, void* stream) {
  require(event, "event_wait");
  gpuStream_t s = resolve(device, stream, "event_wait");
  check_gpu(gpuStreamWaitEvent(s, static_cast<gpuEvent_t>(event), 0), device,
            PLEXUS_GPU_PREFIX "StreamWaitEvent");
}

void Runtime::event_synchronize(int32_t device, void* event) {
  require(event, "event_synchronize");
  devices_.check_index(device, "event_synchronize");
  use_device(device);
  check_gpu(gpuEventSynchronize(static_cast<gpuEvent_t>(event)), device,
            PLEXUS_GPU_PREFIX "EventSynchronize");
}

}  // namespace plexus::gpu
