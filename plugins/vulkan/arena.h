// A host-visible bump allocator owned by one command batch: kernel metadata
// (sizes and strides) and staging bytes for host-to-device copies live here
// until the batch has run, then the whole arena is reset at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "buffer.h"

namespace plexus::vulkan {

// A piece of arena memory: host pointer, and the same bytes for the device.
struct ArenaSlice {
  uint8_t* host;
  VkBuffer buffer;
  VkDeviceSize offset;      // within buffer
  VkDeviceAddress address;  // of host[0]
};

class Arena {
 public:
  Arena(VkDevice dev, uint32_t host_type) : dev_(dev), type_(host_type) {}
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  // n bytes aligned to 16.
  ArenaSlice allocate(size_t n);
  // Bytes handed out since the last reset.
  size_t used() const { return used_; }
  // Forgets every slice (the batch is done); keeps up to 16 MiB of chunks.
  void reset();

 private:
  static constexpr size_t kChunk = size_t{4} << 20;
  VkDevice dev_;
  uint32_t type_;
  std::vector<RawBuffer> chunks_;
  size_t current_ = 0;  // chunk being filled
  size_t top_ = 0;      // its first free byte
  size_t used_ = 0;
};

}  // namespace plexus::vulkan
