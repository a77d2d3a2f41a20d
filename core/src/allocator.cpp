#include "plexus/allocator.h"

#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "plexus/device_backend.h"
#include "plexus/error.h"
#include "plexus/stream.h"

namespace plexus {

void* host_allocate(size_t nbytes) {
  size_t rounded = (nbytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* p = std::aligned_alloc(kHostAlignment, rounded);
  PLEXUS_CHECK(p != nullptr, ErrorCode::OutOfMemory, "host allocation of {} bytes failed", nbytes);
  return p;
}

void host_free(void* ptr) noexcept {
  std::free(ptr);
}

namespace {

// The options, read without a lock on every allocator creation and free.
std::atomic<bool> g_caching{true};
std::atomic<size_t> g_max_cached_bytes{0};

// Block sizes: multiples of 64 bytes up to 4 KiB, then four steps per power of
// two, so rounding wastes at most a quarter and blocks are reused across sizes.
size_t round_block(size_t n) {
  if (n <= 4096) return (n + 63) / 64 * 64;
  size_t top = std::bit_floor(n);
  size_t step = top / 4;
  return (n + step - 1) / step * step;
}

// Blocks are reused by size. For a backend with streams, a block goes only
// to later allocations on the stream it was allocated on (its order makes the
// reuse safe: plexus/stream.h); one that record_stream marked as used on
// other streams waits, after its free, for the work queued there by then.
class CachingAllocator final : public Allocator {
 public:
  CachingAllocator(Device d, DeviceBackend& b)
      : device_(d), backend_(b), streams_(b.has_streams()), events_(b.has_events()) {}
  ~CachingAllocator() override { empty_cache(); }

  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    size_t size = round_block(nbytes);
    detail::StreamKey key = streams_ ? detail::current_stream_key(device_) : detail::StreamKey{};
    {
      std::lock_guard lock(mutex_);
      if (void* p = take_cached(size, key)) {
        stats_.cached_bytes -= size;
        stats_.cache_hits++;
        note_alloc(size, p, key);
        return p;
      }
    }
    void* p = raw_allocate(size, nbytes);
    std::lock_guard lock(mutex_);
    stats_.device_allocations++;
    stats_.reserved_bytes += size;
    note_alloc(size, p, key);
    return p;
  }

  void deallocate(void* ptr, size_t nbytes) noexcept override {
    if (ptr == nullptr) return;
    size_t size = round_block(nbytes);
    std::lock_guard lock(mutex_);
    stats_.frees++;
    stats_.allocated_bytes -= size;
    Cached block{ptr, {}, {}};
    if (streams_) {
      auto it = live_.find(ptr);
      if (it != live_.end()) {
        block.key = it->second.key;
        mark_other_streams(block, it->second.used_on);
        live_.erase(it);
      }
    }
    size_t limit = g_max_cached_bytes.load(std::memory_order_relaxed);
    if (limit != 0 && stats_.cached_bytes + size > limit) {  // over the limit: no caching
      release(block, size);
      return;
    }
    stats_.cached_bytes += size;
    try {
      free_[size].push_back(std::move(block));
    } catch (...) {  // no memory to remember the block: give it back instead
      stats_.cached_bytes -= size;
      release(block, size);
    }
  }

  void record_stream(void* ptr, const Stream& stream) override {
    if (!streams_ || ptr == nullptr) return;
    PLEXUS_CHECK(stream.device() == device_, ErrorCode::InvalidArgument,
                 "record_stream: the memory is on {}, the stream on {}", device_.str(),
                 stream.device().str());
    detail::StreamKey key{stream.handle(), 0};
    if (!key.handle) key = detail::current_stream_key(device_);  // this thread's default
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    PLEXUS_CHECK(it != live_.end(), ErrorCode::InvalidArgument,
                 "record_stream: {} holds no live block at this address (external memory is "
                 "not the allocator's to track)",
                 device_.str());
    if (key == it->second.key) return;  // its own stream: already in order
    for (const detail::StreamKey& k : it->second.used_on)
      if (k == key) return;
    it->second.used_on.push_back(key);
  }

  AllocatorStats stats() const override {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  void reset_peak() override {
    std::lock_guard lock(mutex_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  void empty_cache() override {
    std::lock_guard lock(mutex_);
    for (auto& [size, blocks] : free_) {
      for (Cached& b : blocks) {
        wait_for(b);
        backend_.deallocate(device_.index, b.ptr, size);
      }
      stats_.device_frees += blocks.size();
      stats_.cached_bytes -= size * blocks.size();
      stats_.reserved_bytes -= size * blocks.size();
    }
    free_.clear();
  }
  Device device() const override { return device_; }

 private:
  struct Live {
    detail::StreamKey key;                     // the stream it was allocated on
    std::vector<detail::StreamKey> used_on;    // other streams (record_stream)
  };
  struct Cached {
    void* ptr = nullptr;
    detail::StreamKey key;
    std::vector<void*> events;  // recorded on the other streams at the free
  };

  void note_alloc(size_t size, void* p, detail::StreamKey key) {
    stats_.allocations++;
    stats_.allocated_bytes += size;
    if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
      stats_.peak_allocated_bytes = stats_.allocated_bytes;
    if (streams_) live_[p] = Live{key, {}};
  }

  // A cached block of this size for this stream, waiting (on the host) for
  // the other streams that used it; null if none.
  void* take_cached(size_t size, detail::StreamKey key) {
    auto it = free_.find(size);
    if (it == free_.end()) return nullptr;
    std::vector<Cached>& blocks = it->second;
    // Blocks with nothing to wait for first, the most recently freed first.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = blocks.size(); i-- > 0;) {
        Cached& b = blocks[i];
        if (!(b.key == key) || (pass == 0 && !b.events.empty())) continue;
        wait_for(b);
        void* p = b.ptr;
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    return nullptr;
  }

  // At the free of a block other streams used: an event on each, recorded
  // now, that its reuse waits for. Where an event cannot be recorded (no
  // events, or the default stream of another thread), wait on the host now.
  void mark_other_streams(Cached& block, const std::vector<detail::StreamKey>& used_on) noexcept {
    detail::StreamKey here = detail::current_stream_key(device_);
    for (const detail::StreamKey& k : used_on) {
      bool recordable = events_ && (k.handle != nullptr || k == here);
      try {
        if (recordable) {
          void* e = backend_.create_event(device_.index);
          block.events.push_back(e);
          backend_.record_event(device_.index, e, k.handle);
        } else if (k.handle) {
          backend_.synchronize_stream(device_.index, k.handle);
        } else {
          backend_.synchronize(device_.index);
        }
      } catch (...) {
        try {
          backend_.synchronize(device_.index);
        } catch (...) {
        }
      }
    }
  }

  void wait_for(Cached& b) noexcept {
    for (void* e : b.events) {
      try {
        backend_.synchronize_event(device_.index, e);
      } catch (...) {
      }
      backend_.destroy_event(device_.index, e);
    }
    b.events.clear();
  }

  void release(Cached& block, size_t size) noexcept {
    wait_for(block);
    stats_.reserved_bytes -= size;
    stats_.device_frees++;
    backend_.deallocate(device_.index, block.ptr, size);
  }

  // On failure, return the cache to the device and try once more; then the
  // error says what was asked for and what the cache held.
  void* raw_allocate(size_t size, size_t asked) {
    try {
      return backend_.allocate(device_.index, size);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory) throw;
    }
    size_t cached = stats().cached_bytes;
    empty_cache();
    try {
      return backend_.allocate(device_.index, size);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory) throw;
      AllocatorStats st = stats();
      size_t total = 0;
      try {
        total = backend_.properties(device_.index).total_memory;
      } catch (const Error&) {
      }
      fail(ErrorCode::OutOfMemory,
           "{}: out of memory allocating {} bytes (a block of {}){}; {} bytes are in use by "
           "tensors, {} cached bytes were given back to the device and the allocation retried: "
           "{}",
           device_.str(), asked, size,
           total ? fmt::format(" on a device of {} bytes", total) : std::string(),
           st.allocated_bytes, cached, e.message());
    }
  }

  Device device_;
  DeviceBackend& backend_;
  const bool streams_, events_;
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<Cached>> free_;
  std::unordered_map<void*, Live> live_;  // backends with streams only
  AllocatorStats stats_;
};

// Straight to the device, for backends with their own pool; still counts.
class PassThroughAllocator final : public Allocator {
 public:
  PassThroughAllocator(Device d, DeviceBackend& b) : device_(d), backend_(b) {}
  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    void* p = backend_.allocate(device_.index, nbytes);
    std::lock_guard lock(mutex_);
    stats_.allocations++;
    stats_.device_allocations++;
    stats_.allocated_bytes += nbytes;
    stats_.reserved_bytes += nbytes;
    if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
      stats_.peak_allocated_bytes = stats_.allocated_bytes;
    return p;
  }
  void deallocate(void* ptr, size_t nbytes) noexcept override {
    if (ptr == nullptr) return;
    backend_.deallocate(device_.index, ptr, nbytes);
    std::lock_guard lock(mutex_);
    stats_.frees++;
    stats_.device_frees++;
    stats_.allocated_bytes -= nbytes;
    stats_.reserved_bytes -= nbytes;
  }
  AllocatorStats stats() const override {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  void reset_peak() override {
    std::lock_guard lock(mutex_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  void empty_cache() override {}
  Device device() const override { return device_; }

 private:
  Device device_;
  DeviceBackend& backend_;
  mutable std::mutex mutex_;
  AllocatorStats stats_;
};

// One allocator per (type, index); the cpu one is looked up without a lock.
struct Allocators {
  std::mutex mutex;
  std::map<std::pair<int, int>, std::unique_ptr<Allocator>> all;
  std::atomic<Allocator*> host{nullptr};
};

Allocators& allocators() {
  static Allocators* a = new Allocators;  // never destroyed: storages may outlive main()
  return *a;
}

}  // namespace

Allocator& allocator_for(Device device) {
  Allocators& a = allocators();
  if (device.type == kCPU && device.index == 0) {
    if (Allocator* h = a.host.load(std::memory_order_acquire)) return *h;
  }
  DeviceBackend& backend = device_backend(device.type);
  std::lock_guard lock(a.mutex);
  auto it = a.all.find({device.type, device.index});
  if (it != a.all.end()) return *it->second;
  int count = backend.device_count();
  if (device.index < 0 || device.index >= count) {
    std::string why = count == 0 ? backend.unavailable_reason() : "";
    fail(ErrorCode::NotFound, "device {} does not exist ({} has {} device(s){})", device.str(),
         device_type_name(device.type), count, why.empty() ? "" : ": " + why);
  }
  auto& slot = a.all[{device.type, device.index}];
  if (backend.wants_caching_allocator() && g_caching.load(std::memory_order_relaxed))
    slot = std::make_unique<CachingAllocator>(device, backend);
  else
    slot = std::make_unique<PassThroughAllocator>(device, backend);
  if (device.type == kCPU && device.index == 0) a.host.store(slot.get());
  return *slot;
}

void set_allocator_options(const AllocatorOptions& options) {
  g_caching.store(options.caching, std::memory_order_relaxed);
  g_max_cached_bytes.store(options.max_cached_bytes, std::memory_order_relaxed);
}

AllocatorOptions allocator_options() {
  return {g_caching.load(std::memory_order_relaxed),
          g_max_cached_bytes.load(std::memory_order_relaxed)};
}

size_t live_bytes(DeviceType type) {
  Allocators& a = allocators();
  std::lock_guard lock(a.mutex);
  size_t n = 0;
  for (auto& [key, alloc] : a.all)
    if (key.first == type) n += alloc->stats().allocated_bytes;
  return n;
}

void release_allocators(DeviceType type) {
  Allocators& a = allocators();
  std::lock_guard lock(a.mutex);
  for (auto it = a.all.begin(); it != a.all.end();) {
    if (it->first.first == type) {
      it->second->empty_cache();
      if (type == kCPU) a.host.store(nullptr);
      it = a.all.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace plexus
