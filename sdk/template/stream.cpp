// toydev streams and events: work is synchronous, so they are markers checked
// for kind and device.
#include "backend.h"

#include <cstring>
#include <string>

namespace toydev {

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
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev:{}: not a live {} of this device", device,
              kind == Marker::kStream ? "stream" : "event");
}

void ToyBackend::check_stream(int32_t device, void* stream) {
  if (stream)
    check_marker(Marker::kStream, device, stream);
  else
    arena(device);
}

}  // namespace toydev
