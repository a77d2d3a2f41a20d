// Streams and this thread's current stream per device (plexus/stream.h).
#include "plexus/stream.h"

#include <atomic>
#include <utility>
#include <vector>

#include "plexus/device_backend.h"
#include "plexus/error.h"

namespace plexus {
namespace {

// The streams guards set on this thread, innermost last per device. Empty on
// almost every thread, so the hot path reads one size and returns.
thread_local std::vector<std::pair<Device, Stream>> t_current;

uint64_t this_thread_number() noexcept {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t n = next.fetch_add(1, std::memory_order_relaxed);
  return n;
}

const Stream* find_current(Device device) noexcept {
  for (auto it = t_current.rbegin(); it != t_current.rend(); ++it)
    if (it->first == device) return &it->second;
  return nullptr;
}

}  // namespace

Stream Stream::create(Device device) {
  DeviceBackend& backend = device_backend(device.type);
  PLEXUS_CHECK(backend.has_streams(), ErrorCode::Unsupported,
               "Stream::create({}): the {} backend has no streams (its work runs in order on "
               "the default stream)",
               device.str(), device_type_name(device.type));
  void* h = backend.create_stream(device.index);
  Stream s(device);
  DeviceType type = device.type;
  int index = device.index;
  s.handle_ = std::shared_ptr<void>(h, [type, index](void* p) {
    // The plugin may have been unloaded first: then its streams are gone too.
    // The work is finished first: the allocator keys cached blocks by handle,
    // and a later stream may get this handle's address.
    if (DeviceBackend* b = find_device_backend(type)) {
      try {
        b->synchronize_stream(index, p);
      } catch (...) {
      }
      b->destroy_stream(index, p);
    }
  });
  return s;
}

Stream Stream::current(Device device) {
  if (const Stream* s = find_current(device)) return *s;
  return Stream(device);
}

void Stream::synchronize() const {
  DeviceBackend& backend = device_backend(device_.type);
  if (backend.has_streams())
    backend.synchronize_stream(device_.index, handle());
  else
    backend.synchronize(device_.index);
}

void Stream::wait(const Stream& other) const {
  PLEXUS_CHECK(other.device_ == device_, ErrorCode::InvalidArgument,
               "Stream::wait: this stream is on {}, the other on {}; streams of one device only",
               device_.str(), other.device_.str());
  if (other.handle() == handle()) return;  // one queue: already in order
  DeviceBackend& backend = device_backend(device_.type);
  if (!backend.has_events()) {
    other.synchronize();
    return;
  }
  void* event = backend.create_event(device_.index);
  try {
    backend.record_event(device_.index, event, other.handle());
    backend.wait_event(device_.index, event, handle());
  } catch (...) {
    backend.destroy_event(device_.index, event);
    throw;
  }
  // Destroying an event with a wait pending is safe (plugin.h: events are
  // markers the queued wait has already taken).
  backend.destroy_event(device_.index, event);
}

StreamGuard::StreamGuard(const Stream& stream) : device_(stream.device()) {
  t_current.emplace_back(device_, stream);
}

StreamGuard::~StreamGuard() {
  // Guards nest, so this device's innermost entry is this guard's.
  for (auto it = t_current.rbegin(); it != t_current.rend(); ++it)
    if (it->first == device_) {
      t_current.erase(std::next(it).base());
      break;
    }
}

namespace detail {

void* current_stream_handle(Device device) noexcept {
  if (t_current.empty()) [[likely]]
    return nullptr;
  const Stream* s = find_current(device);
  return s ? s->handle() : nullptr;
}

StreamKey current_stream_key(Device device) noexcept {
  void* h = current_stream_handle(device);
  return h ? StreamKey{h, 0} : StreamKey{nullptr, this_thread_number()};
}

}  // namespace detail
}  // namespace plexus
