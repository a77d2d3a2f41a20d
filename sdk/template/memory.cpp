// The simulated device memory (Arena), and the plexus_backend memory functions over it.
#include "memory.h"

#include <cstdio>
#include <cstring>
#include <plexus/plugin.hpp>
#include <string>

#include "backend.h"

namespace toydev {
namespace {

namespace sdk = plexus::sdk;

// Handles are tagged values no host pointer can equal: a non-canonical address
// on x86-64 (it faults if the host ever dereferences one), with the device in
// bits 40-47 and the block id below.
constexpr uint64_t kTag = 0x7d00'0000'0000'0000ull, kTagMask = 0xff00'0000'0000'0000ull;
constexpr uint64_t kIdMask = (1ull << 40) - 1;

uint64_t encode(int32_t device, uint64_t id) {
  return kTag | (uint64_t(device) << 40) | id;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Arena::Arena(int32_t device, size_t capacity) : device_(device), capacity_(capacity) {}

void* Arena::allocate(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (nbytes > capacity_ - used_)
    sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY, "toydev:{}: cannot allocate {} bytes: {} of {} free",
              device_, nbytes, capacity_ - used_, capacity_);
  uint64_t id = next_id_++;
  blocks_[id].resize(nbytes);
  used_ += nbytes;
  return reinterpret_cast<void*>(encode(device_, id));
}

void Arena::deallocate(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uint64_t>(handle) & kIdMask);
  if (it == blocks_.end() || encode(device_, it->first) != reinterpret_cast<uint64_t>(handle))
    return;
  used_ -= it->second.size();
  blocks_.erase(it);
}

std::byte* Arena::resolve(const void* handle, size_t offset, size_t nbytes) {
  uint64_t h = reinterpret_cast<uint64_t>(handle);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = (h & kTagMask) == kTag ? blocks_.find(h & kIdMask) : blocks_.end();
  if (it == blocks_.end() || encode(device_, it->first) != h)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev:{}: {} is not a block of this device", device_,
              hex(h));
  if (offset > it->second.size() || nbytes > it->second.size() - offset)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev:{}: bytes [{}, {}) are outside a block of {}",
              device_, offset, offset + nbytes, it->second.size());
  // The vector's buffer stays put while the block lives, map rehashing included.
  return it->second.data() + offset;
}

// The plexus_backend memory functions over the arena.

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

}  // namespace toydev
