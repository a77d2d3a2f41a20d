// Device memory: tensors are sub-allocated from large blocks (one VkBuffer over
// one VkDeviceMemory each), with a free list per block; an allocation larger
// than a block gets a block of its own. What the host holds as a storage
// pointer is an Allocation*; kernels address it by device address plus byte
// offset (buffer device addresses: no descriptor, no 128 MiB
// maxStorageBufferRange limit on a binding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "buffer.h"

namespace plexus::vulkan {

// A block and its free ranges (offset -> size), coalesced on release.
struct Block {
  RawBuffer raw;
  std::map<VkDeviceSize, VkDeviceSize> free;
  bool dedicated = false;  // holds one allocation; freed with it
  // Uniform texel buffer views of the whole block, 16-byte
  // (R32G32B32A32_UINT) and 4-byte (R32_UINT) texels, made on first use by
  // the packed kernels (launch.cpp); null until then.
  VkBufferView texel_view = VK_NULL_HANDLE;
  VkBufferView texel_view32 = VK_NULL_HANDLE;
};

// One tensor's memory: [offset, offset + size) of a block's buffer.
struct Allocation {
  Block* block;
  VkBuffer buffer;
  VkDeviceSize offset;
  VkDeviceAddress address;  // of byte 0 of this allocation
  uint8_t* mapped;          // host address of byte 0, or nullptr
  size_t size;              // bytes reserved (rounded up)
};

class MemoryPool {
 public:
  // `limit` is the most bytes one allocation may have (maxMemoryAllocationSize
  // and the heap size); `capacity` the most bytes all blocks together may
  // hold (the heap, or the plugin option max_device_memory); `name` names the
  // device in errors ("vulkan:0").
  void init(VkDevice dev, uint32_t type, bool mappable, VkDeviceSize limit, VkDeviceSize capacity,
            std::string name);
  ~MemoryPool();
  // Throws OUT_OF_MEMORY naming the size when it cannot. When a new block
  // would pass the capacity, or the driver refuses one, the pool first gives
  // its empty blocks back to the driver and tries once more; the error then
  // says what was asked, held and given back.
  Allocation* allocate(size_t nbytes);
  // Returns the range to its block now (the caller has made sure no queued
  // work still uses it).
  void release(Allocation* a);
  void destroy();
  // Lets texel_view() make views of at most max_texels texels.
  void enable_texel_views(VkDeviceSize max_texels) { max_texels_ = max_texels; }
  // The block's whole-block view of 16-byte texels (`wide`) or 4-byte ones
  // (made now if need be), or VK_NULL_HANDLE when views are not enabled or
  // the block has too many texels for one.
  VkBufferView texel_view(Block* b, bool wide = true);

 private:
  static constexpr VkDeviceSize kBlockSize = VkDeviceSize{256} << 20;
  static constexpr VkDeviceSize kAlignment = 256;
  Block* add_block(VkDeviceSize size);
  // add_block within the capacity, giving empty blocks back first if need be.
  Block* add_block_or_trim(VkDeviceSize size, size_t asked);
  // Destroys every shared block no allocation uses; returns their bytes.
  VkDeviceSize release_empty_blocks();
  void destroy_block(Block& b);

  std::mutex mu_;
  VkDevice dev_ = VK_NULL_HANDLE;
  uint32_t type_ = 0;
  bool mappable_ = false;
  VkDeviceSize limit_ = 0;
  VkDeviceSize capacity_ = 0;
  VkDeviceSize reserved_ = 0;  // bytes of every block
  VkDeviceSize used_ = 0;      // bytes of every allocation
  std::string name_;
  VkDeviceSize max_texels_ = 0;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace plexus::vulkan
