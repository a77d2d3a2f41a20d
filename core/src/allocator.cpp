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

class CachingAllocator final : public Allocator {
 public:
  CachingAllocator(Device d, DeviceBackend& b) : device_(d), backend_(b) {}
  ~CachingAllocator() override { empty_cache(); }

  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    size_t size = round_block(nbytes);
    {
      std::lock_guard lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        stats_.cached_bytes -= size;
        stats_.cache_hits++;
        note_alloc(size);
        return p;
      }
    }
    void* p = raw_allocate(size);
    std::lock_guard lock(mutex_);
    stats_.device_allocations++;
    stats_.reserved_bytes += size;
    note_alloc(size);
    return p;
  }

  void deallocate(void* ptr, size_t nbytes) noexcept override {
    if (ptr == nullptr) return;
    size_t size = round_block(nbytes);
    std::lock_guard lock(mutex_);
    stats_.frees++;
    stats_.allocated_bytes -= size;
    size_t limit = g_max_cached_bytes.load(std::memory_order_relaxed);
    if (limit != 0 && stats_.cached_bytes + size > limit) {  // over the limit: no caching
      stats_.reserved_bytes -= size;
      stats_.device_frees++;
      backend_.deallocate(device_.index, ptr, size);
      return;
    }
    stats_.cached_bytes += size;
    try {
      free_[size].push_back(ptr);
    } catch (...) {  // no memory to remember the block: give it back instead
      stats_.cached_bytes -= size;
      stats_.reserved_bytes -= size;
      stats_.device_frees++;
      backend_.deallocate(device_.index, ptr, size);
    }
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
      for (void* p : blocks) backend_.deallocate(device_.index, p, size);
      stats_.device_frees += blocks.size();
      stats_.cached_bytes -= size * blocks.size();
      stats_.reserved_bytes -= size * blocks.size();
    }
    free_.clear();
  }
  Device device() const override { return device_; }

 private:
  void note_alloc(size_t size) {
    stats_.allocations++;
    stats_.allocated_bytes += size;
    if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
      stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  // On failure, return the cache to the device and try once more.
  void* raw_allocate(size_t size) {
    try {
      return backend_.allocate(device_.index, size);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory) throw;
    }
    empty_cache();
    try {
      return backend_.allocate(device_.index, size);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory) throw;
      fail(ErrorCode::OutOfMemory, "{}: allocating {} bytes failed ({} bytes in use): {}",
           device_.str(), size, stats().allocated_bytes, e.message());
    }
  }

  Device device_;
  DeviceBackend& backend_;
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;
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
