// Streams and events: the default streams (stream.h), stream_of, and the
// backend's stream and event functions.
#include "stream.h"

#include <string>

#include "backend.h"
#include "errors.h"

namespace plexus::gpu {
namespace {

std::atomic<uint64_t> g_generation{0};

// Each thread's last lookups, so the hot path takes no lock. Plain data only:
// no destructor runs at thread exit after the plugin was unloaded.
constexpr int32_t kCachedDevices = 16;
struct ThreadCache {
  uint64_t generation = 0;
  gpuStream_t streams[kCachedDevices] = {};
};
thread_local ThreadCache t_cache;

void require(const void* handle, const char* what) {
  if (!handle) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "{}: the handle is NULL", what);
}

}  // namespace

gpuStream_t stream_of(const plexus_kernel_call& call) {
  return backend().resolve(call.device_index, call.stream, call.op);
}

DefaultStreams::Policy DefaultStreams::parse_policy(const std::string& name) {
  if (name.empty() || name == "shared") return Policy::shared;
  if (name == "per_thread") return Policy::per_thread;
  sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
            "option default_stream = '{}': expected 'shared' or 'per_thread'", name);
}

DefaultStreams::DefaultStreams(int32_t devices, Policy policy)
    : policy_(policy), generation_(++g_generation), shared_(static_cast<size_t>(devices)) {}

DefaultStreams::~DefaultStreams() {
  for (auto& s : shared_)
    if (gpuStream_t p = s.load()) (void)gpuStreamDestroy(p);
  for (auto& [key, s] : threads_) (void)gpuStreamDestroy(s);
}

gpuStream_t DefaultStreams::create(int32_t device) {
  use_device(device);
  gpuStream_t s = nullptr;
  check_gpu(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking), device,
            PLEXUS_GPU_PREFIX "StreamCreateWithFlags (default stream)");
  return s;
}

gpuStream_t DefaultStreams::get(int32_t device) {
  if (policy_ == Policy::per_thread) return per_thread(device);
  std::atomic<gpuStream_t>& slot = shared_.at(static_cast<size_t>(device));
  if (gpuStream_t s = slot.load(std::memory_order_acquire)) return s;
  std::lock_guard lock(mutex_);
  if (!slot.load()) slot.store(create(device), std::memory_order_release);
  return slot.load();
}

gpuStream_t DefaultStreams::per_thread(int32_t device) {
  bool cached = device < kCachedDevices;
  if (cached && t_cache.generation == generation_ && t_cache.streams[device])
    return t_cache.streams[device];
  std::lock_guard lock(mutex_);
  gpuStream_t& s = threads_[{std::this_thread::get_id(), device}];
  if (!s) s = create(device);
  if (cached) {
    if (t_cache.generation != generation_) t_cache = ThreadCache{generation_, {}};
    t_cache.streams[device] = s;
  }
  return s;
}

void* GpuBackend::stream_create(int32_t device) {
  devices_.check_index(device, "stream_create");
  use_device(device);
  gpuStream_t s = nullptr;
  check_gpu(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking), device,
            PLEXUS_GPU_PREFIX "StreamCreateWithFlags");
  return s;
}

void GpuBackend::stream_destroy(int32_t device, void* stream) {
  if (!stream) return;  // the default stream is the runtime's own
  devices_.check_index(device, "stream_destroy");
  use_device(device);
  check_gpu(gpuStreamDestroy(static_cast<gpuStream_t>(stream)), device,
            PLEXUS_GPU_PREFIX "StreamDestroy");
}

void GpuBackend::stream_synchronize(int32_t device, void* stream) {
  gpuStream_t s = resolve(device, stream, "stream_synchronize");
  check_gpu(gpuStreamSynchronize(s), device, PLEXUS_GPU_PREFIX "StreamSynchronize");
}

void* GpuBackend::event_create(int32_t device) {
  devices_.check_index(device, "event_create");
  use_device(device);
  gpuEvent_t e = nullptr;
  check_gpu(gpuEventCreateWithFlags(&e, gpuEventDisableTiming), device,
            PLEXUS_GPU_PREFIX "EventCreateWithFlags");
  return e;
}

void GpuBackend::event_destroy(int32_t device, void* event) {
  if (!event) return;
  devices_.check_index(device, "event_destroy");
  use_device(device);
  check_gpu(gpuEventDestroy(static_cast<gpuEvent_t>(event)), device,
            PLEXUS_GPU_PREFIX "EventDestroy");
}

void GpuBackend::event_record(int32_t device, void* event, void* stream) {
  require(event, "event_record");
  gpuStream_t s = resolve(device, stream, "event_record");
  check_gpu(gpuEventRecord(static_cast<gpuEvent_t>(event), s), device,
            PLEXUS_GPU_PREFIX "EventRecord");
}

void GpuBackend::event_wait(int32_t device, void* event, void* stream) {
  require(event, "event_wait");
  gpuStream_t s = resolve(device, stream, "event_wait");
  check_gpu(gpuStreamWaitEvent(s, static_cast<gpuEvent_t>(event), 0), device,
            PLEXUS_GPU_PREFIX "StreamWaitEvent");
}

void GpuBackend::event_synchronize(int32_t device, void* event) {
  require(event, "event_synchronize");
  devices_.check_index(device, "event_synchronize");
  use_device(device);
  check_gpu(gpuEventSynchronize(static_cast<gpuEvent_t>(event)), device,
            PLEXUS_GPU_PREFIX "EventSynchronize");
}

}  // namespace plexus::gpu
