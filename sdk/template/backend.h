// The toydev device type: what the host calls through plexus_backend, as an
// sdk::Backend. Work runs synchronously on the calling thread, so streams and
// events only need to exist and be checked.
#pragma once

#include <memory>
#include <mutex>
#include <plexus/plugin.hpp>
#include <unordered_map>
#include <vector>

#include "memory.h"

namespace toydev {

namespace sdk = plexus::sdk;

class ToyBackend : public sdk::Backend<ToyBackend> {
 public:
  ToyBackend(int32_t devices, size_t memory_per_device);

  // A typed view of a toydev tensor, its handle resolved to arena memory
  // (the whole range the view spans is checked against its block).
  template <typename T>
  sdk::TensorView<T> view(const plexus_tensor& t);

  // The plexus_backend functions (see sdk/backend.hpp).
  int32_t device_count() { return static_cast<int32_t>(arenas_.size()); }
  void properties(int32_t device, plexus_device_properties& out);
  void* allocate(int32_t device, size_t nbytes) { return arena(device).allocate(nbytes); }
  void deallocate(int32_t device, void* ptr, size_t) { arena(device).deallocate(ptr); }
  void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes, void* stream);
  void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                           size_t nbytes, void* stream);
  void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                           size_t nbytes, void* stream);
  void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void* stream);
  void synchronize(int32_t device) { arena(device); }
  void* stream_create(int32_t device);
  void stream_destroy(int32_t device, void* stream);
  void stream_synchronize(int32_t device, void* stream) { check_stream(device, stream); }
  void* event_create(int32_t device);
  void event_destroy(int32_t device, void* event);
  void event_record(int32_t device, void* event, void* stream);
  void event_wait(int32_t device, void* event, void* stream);
  void event_synchronize(int32_t device, void* event) { check_event(device, event); }

 private:
  // The arena of a device; throws for an index out of range.
  Arena& arena(int32_t device);
  // A stream or an event: synchronous work needs no state beyond which device
  // it belongs to, and what it is (to catch one passed for the other).
  struct Marker {
    enum Kind { kStream, kEvent } kind;
    int32_t device;
  };
  void* create_marker(Marker::Kind kind, int32_t device);
  void destroy_marker(Marker::Kind kind, int32_t device, void* handle);
  // Throws unless `handle` is a live marker of this kind and device.
  void check_marker(Marker::Kind kind, int32_t device, void* handle);
  // The same for a stream argument (NULL: the default stream) and an event.
  void check_stream(int32_t device, void* stream);
  void check_event(int32_t device, void* event) { check_marker(Marker::kEvent, device, event); }

  std::vector<std::unique_ptr<Arena>> arenas_;
  std::mutex markers_mutex_;  // guards markers_
  std::unordered_map<const void*, std::unique_ptr<Marker>> markers_;
};

template <typename T>
sdk::TensorView<T> ToyBackend::view(const plexus_tensor& t) {
  int64_t first = t.offset, last = t.offset;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.sizes[d] == 0) return sdk::TensorView<T>(t, nullptr);  // no elements to address
    last += (t.sizes[d] - 1) * t.strides[d];
  }
  size_t item = sizeof(T), begin = size_t(first) * item, end = size_t(last + 1) * item;
  std::byte* bytes = arena(t.device_index).resolve(t.storage, begin, end - begin);
  return sdk::TensorView<T>(t, bytes - begin);
}

}  // namespace toydev
