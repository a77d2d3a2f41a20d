// One VkBuffer over its own VkDeviceMemory, with its device address and, when
// the memory is host-visible, its persistent host mapping: the unit both the
// device allocator (large blocks) and the staging arenas are made of.
#pragma once

#include <cstdint>

#include "vk.h"

namespace plexus::vulkan {

struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
  uint8_t* mapped = nullptr;  // nullptr when the memory is not host-visible
  VkDeviceSize size = 0;
};

// Creates a storage/transfer/uniform-texel buffer with a device address in memory type
// `type`, mapped when `map`. Throws OUT_OF_MEMORY when the device refuses.
RawBuffer create_raw_buffer(VkDevice dev, VkDeviceSize size, uint32_t type, bool map);
void destroy_raw_buffer(VkDevice dev, RawBuffer& b);

}  // namespace plexus::vulkan
