// Allocators: the 64-byte aligned host allocator and the caching allocator
// that sits over each device's raw allocate/free, with statistics.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plexus/device.h"

namespace plexus {

class Stream;

// Alignment of every host allocation plexus makes.
inline constexpr size_t kHostAlignment = 64;

// Counters of one allocator. Bytes are counted after rounding to the block size.
struct AllocatorStats {
  size_t allocated_bytes = 0;       // in use by live storages
  size_t peak_allocated_bytes = 0;  // highest allocated_bytes since the last reset_peak
  size_t cached_bytes = 0;          // freed by storages, kept for reuse
  size_t reserved_bytes = 0;        // allocated + cached: what the device has given us
  uint64_t allocations = 0;         // allocate() calls with nbytes > 0
  uint64_t frees = 0;               // deallocate() calls with a non-null block
  uint64_t cache_hits = 0;          // allocations served from the cache
  uint64_t device_allocations = 0;  // calls to the device's raw allocate
  uint64_t device_frees = 0;        // calls to the device's raw free
};

// An allocator for one device.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns nbytes of memory (nullptr for 0 bytes); throws Error(OutOfMemory).
  virtual void* allocate(size_t nbytes) = 0;
  // Returns a block from allocate(nbytes). Never throws.
  virtual void deallocate(void* ptr, size_t nbytes) noexcept = 0;
  virtual AllocatorStats stats() const = 0;
  virtual void reset_peak() = 0;
  // Gives cached blocks back to the device.
  virtual void empty_cache() = 0;
  // Marks the block at ptr (from allocate) as used by work on `stream` too:
  // after its free, it is reused only once the work queued on that stream by
  // then is done (plexus/stream.h). No-op for devices without streams.
  virtual void record_stream(void* ptr, const Stream& stream) { (void)ptr, (void)stream; }
  virtual Device device() const = 0;
};

// The allocator tensors on `device` use: the caching allocator over the
// device's backend, or a pass-through when the backend opts out. Created on
// first use; lives until release_allocators(). Thread-safe.
Allocator& allocator_for(Device device);
// Empties the cache of every allocator of this device type and forgets them;
// called before a backend is unloaded. Storages still alive keep working only
// if the backend stays loaded, so call it after they are gone.
void release_allocators(DeviceType type);
// Bytes held by live storages on any device of this type (0 before unloading is safe).
size_t live_bytes(DeviceType type);

// How the allocators behave; plexus::Runtime sets these from plexus.toml's [allocator].
struct AllocatorOptions {
  // false: allocators created from now on pass every allocation straight to
  // the device (no cache); ones already created keep their kind.
  bool caching = true;
  // Cached bytes each caching allocator keeps at most; a block freed beyond it
  // goes back to the device at once. 0 = no limit. Applies immediately.
  size_t max_cached_bytes = 0;
};
void set_allocator_options(const AllocatorOptions& options);
AllocatorOptions allocator_options();

// Raw 64-byte aligned host memory (the cpu backend's allocate/free).
void* host_allocate(size_t nbytes);
void host_free(void* ptr) noexcept;

}  // namespace plexus
