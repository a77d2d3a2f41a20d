// Streams: ordered queues of work on one device, chosen per thread.
//
//   Stream s = Stream::create(device);          // a new stream (the backend must have streams)
//   {
//     StreamGuard g(s);                         // this thread's work on `device` goes to s
//     Tensor y = x.matmul(w).relu();            // kernels, copies and allocations use s
//   }                                           // back to the stream that was current before
//   Stream::current(device).wait(s);            // later default-stream work waits for s's
//
// Every kernel call and every copy the host makes for a device is queued on
// that device's current stream on the calling thread: the stream a
// StreamGuard set, else the device's default stream (a NULL handle, which
// the backend maps to its default stream; for the gpu plugins with
// default_stream = "per_thread" that is a stream of the thread's own).
//
// Memory and streams (the record_stream problem): the caching allocator
// hands a freed block only to later allocations on the stream it was
// allocated on, whose order makes the reuse safe. A tensor used on another
// stream must say so with Tensor::record_stream(s); when it is freed, its
// block is reused only after the work queued on s by then is done. Since a
// NULL handle may mean a different stream on each thread, blocks allocated on
// the default stream are reused by the allocating thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "plexus/device.h"

namespace plexus {

class Stream {
 public:
  // The cpu's default stream.
  Stream() = default;
  // A new stream on `device`; destroyed when the last copy of it goes.
  // Throws Unsupported when the device's backend has no streams.
  static Stream create(Device device);
  // The default stream of `device` (handle NULL).
  static Stream default_for(Device device) { return Stream(device); }
  // This thread's current stream on `device`.
  static Stream current(Device device);

  Device device() const { return device_; }
  // The backend's handle; NULL for the default stream.
  void* handle() const { return handle_.get(); }
  bool is_default() const { return handle_ == nullptr; }

  // Waits on the host until the work queued on this stream is done.
  void synchronize() const;
  // Makes work queued on this stream from now on wait for the work queued on
  // `other` (same device) so far, without blocking the host. Uses an event
  // where the backend has them; otherwise synchronizes `other` on the host.
  void wait(const Stream& other) const;

  bool operator==(const Stream& o) const { return device_ == o.device_ && handle() == o.handle(); }

 private:
  explicit Stream(Device device) : device_(device) {}
  Device device_;
  std::shared_ptr<void> handle_;
};

// Sets this thread's current stream on the stream's device for its lifetime,
// then restores the one before. Not movable: scopes nest.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Device device_;
};

namespace detail {
// The handle of this thread's current stream on `device` (NULL: the default
// stream). For the dispatcher's hot path: one thread-local read when no
// guard is active.
void* current_stream_handle(Device device) noexcept;
// A key that tells apart the streams the allocator must keep apart: the
// handle, or, for the default stream (whose meaning may differ per thread),
// this thread.
struct StreamKey {
  void* handle = nullptr;
  uint64_t thread = 0;
  bool operator==(const StreamKey&) const = default;
};
StreamKey current_stream_key(Device device) noexcept;
}  // namespace detail

}  // namespace plexus
