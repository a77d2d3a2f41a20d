// DeviceBackend: what the core needs from a device type to keep tensors there
// (memory, copies, synchronization). Kernels are separate: they live in the
// dispatcher's tables. The plugin loader wraps each plugin's C table in one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "plexus/device.h"

namespace plexus {

// What a device reports about itself.
struct DeviceProperties {
  std::string name;           // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor;         // "Mesa"
  std::string kind;           // "cpu", "gpu", "accelerator" or "emulated"
  size_t total_memory = 0;    // bytes; 0 when unknown
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // How many devices of this type exist right now.
  virtual int device_count() = 0;
  // Why device_count() is 0 ("driver not found"); empty when devices exist.
  virtual std::string unavailable_reason() { return {}; }
  virtual DeviceProperties properties(int index) = 0;
  // Raw memory. allocate throws Error(OutOfMemory) on failure; nbytes > 0.
  virtual void* allocate(int index, size_t nbytes) = 0;
  virtual void deallocate(int index, void* ptr, size_t nbytes) noexcept = 0;
  // Copies of n bytes. Device memory is addressed as (pointer from allocate,
  // byte offset): device pointers are opaque handles the core never offsets.
  // copy_to_host returns when the bytes have arrived.
  virtual void copy_from_host(int index, void* dst, size_t dst_offset, const void* src,
                              size_t n) = 0;
  virtual void copy_to_host(int index, void* dst, const void* src, size_t src_offset,
                            size_t n) = 0;
  virtual void copy_on_device(int index, void* dst, size_t dst_offset, const void* src,
                              size_t src_offset, size_t n) = 0;
  // Waits until all work queued on the device is done.
  virtual void synchronize(int index) = 0;
  // False when the backend manages its own memory pool and the core's caching
  // allocator should pass allocations straight through.
  virtual bool wants_caching_allocator() const { return true; }

  // ---- Work on streams (optional) ------------------------------------------
  // A stream is an ordered queue of work on one device; an event marks a point
  // in a stream. Handles are opaque; a null stream is the device's default
  // stream. Backends without streams keep these defaults: has_streams() and
  // has_events() are false, the create functions throw Unsupported, and the
  // enqueue functions run synchronously.
  virtual bool has_streams() const { return false; }
  virtual bool has_events() const { return false; }
  virtual void* create_stream(int index);
  virtual void destroy_stream(int index, void* stream) noexcept;
  // Waits on the host until all work on the stream is done.
  virtual void synchronize_stream(int index, void* stream);
  virtual void* create_event(int index);
  virtual void destroy_event(int index, void* event) noexcept;
  // Marks the point `stream` has reached; wait_event makes later work on
  // `stream` wait for it (not the host); synchronize_event waits on the host.
  virtual void record_event(int index, void* event, void* stream);
  virtual void wait_event(int index, void* event, void* stream);
  virtual void synchronize_event(int index, void* event);
  // Copies and memset queued on `stream` behind its earlier work. A host
  // source must stay valid until the stream is synchronized; copy_to_host_on
  // returns when the bytes have arrived.
  virtual void copy_from_host_on(int index, void* dst, size_t dst_offset, const void* src,
                                 size_t n, void* stream);
  virtual void copy_to_host_on(int index, void* dst, const void* src, size_t src_offset,
                               size_t n, void* stream);
  virtual void copy_on_device_on(int index, void* dst, size_t dst_offset, const void* src,
                                 size_t src_offset, size_t n, void* stream);
  // Sets n bytes at (ptr + offset) to `value`. The default copies from a host buffer.
  virtual void memset_on(int index, void* ptr, size_t offset, int value, size_t n, void* stream);
};

// Installs the backend for a device type (replacing any earlier one). The
// registry keeps it alive until replaced or reset. Thread-safe.
void set_device_backend(DeviceType type, std::shared_ptr<DeviceBackend> backend);
// The backend for a device type; nullptr when none is installed. Lock-free.
DeviceBackend* find_device_backend(DeviceType type);
// Like find_device_backend, but throws NotFound naming the device when absent.
DeviceBackend& device_backend(DeviceType type);

}  // namespace plexus
