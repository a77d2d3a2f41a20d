#include "backend.h"

#include <cstring>
#include <string>

namespace toydev {

ToyBackend::ToyBackend(int32_t devices, size_t memory_per_device) {
  for (int32_t i = 0; i < devices; ++i)
    arenas_.push_back(std::make_unique<Arena>(i, memory_per_device));
}

Arena& ToyBackend::arena(int32_t device) {
  if (device < 0 || device >= device_count())
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev has no device " + std::to_string(device));
  return *arenas_[size_t(device)];
}

void ToyBackend::properties(int32_t device, plexus_device_properties& out) {
  std::string name = "toydev simulated device " + std::to_string(device);
  sdk::copy_string(out.name, name.c_str());
  sdk::copy_string(out.vendor, "plexus SDK template");
  out.kind = PLEXUS_DEVICE_KIND_EMULATED;
  out.capabilities = 0;  // synchronous; device pointers are handles, not host pointers
  out.total_memory = arena(device).capacity();
  out.dtypes = sdk::kAllDTypes;
}

void ToyBackend::memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes,
                        void* stream) {
  check_stream(device, stream);
  std::memset(arena(device).resolve(ptr, offset, nbytes), value, nbytes);
}

void ToyBackend::copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                                     size_t nbytes, void* stream) {
  check_stream(device, stream);
  std::memcpy(arena(device).resolve(dst, dst_offset, nbytes), src, nbytes);
}

void ToyBackend::copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                                     size_t nbytes, void* stream) {
  check_stream(device, stream);
  std::memcpy(dst, arena(device).resolve(src, src_offset, nbytes), nbytes);
}

void ToyBackend::copy_device_to_device(int32_t device, void* dst, size_t dst_offset,
                                       const void* src, size_t src_offset, size_t nbytes,
                                       void* stream) {
  check_stream(device, stream);
  Arena& a = arena(device);
  std::memcpy(a.resolve(dst, dst_offset, nbytes), a.resolve(src, src_offset, nbytes), nbytes);
}

void* ToyBackend::stream_create(int32_t device) {
  return create_marker(Marker::kStream, device);
}

void ToyBackend::stream_destroy(int32_t device, void* stream) {
  destroy_marker(Marker::kStream, device, stream);
}

void* ToyBackend::event_create(int32_t device) {
  return create_marker(Marker::kEvent, device);
}

void ToyBackend::event_destroy(int32_t device, void* event) {
  destroy_marker(Marker::kEvent, device, event);
}

// Work before the event is done as soon as it was submitted: recording and
// waiting only check their arguments.
void ToyBackend::event_record(int32_t device, void* event, void* stream) {
  check_event(device, event);
  check_stream(device, stream);
}

void ToyBackend::event_wait(int32_t device, void* event, void* stream) {
  check_event(device, event);
  check_stream(device, stream);
}

void* ToyBackend::create_marker(Marker::Kind kind, int32_t device) {
  arena(device);
  auto marker = std::make_unique<Marker>(Marker{kind, device});
  void* handle = marker.get();
  std::lock_guard<std::mutex> lock(markers_mutex_);
  markers_.emplace(handle, std::move(marker));
  return handle;
}

void ToyBackend::destroy_marker(Marker::Kind kind, int32_t device, void* handle) {
  check_marker(kind, device, handle);
  std::lock_guard<std::mutex> lock(markers_mutex_);
  markers_.erase(handle);
}

void ToyBackend::check_marker(Marker::Kind kind, int32_t device, void* handle) {
  arena(device);
  std::lock_guard<std::mutex> lock(markers_mutex_);
  auto it = markers_.find(handle);
  if (it == markers_.end() || it->second->kind != kind || it->second->device != device)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev:" + std::to_string(device) + ": not a live " +
                                                 (kind == Marker::kStream ? "stream" : "event") +
                                                 " of this device");
}

void ToyBackend::check_stream(int32_t device, void* stream) {
  if (stream)
    check_marker(Marker::kStream, device, stream);
  else
    arena(device);
}

}  // namespace toydev
