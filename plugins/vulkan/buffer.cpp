// One VkBuffer over its own VkDeviceMemory: creating, mapping, destroying.
#include "buffer.h"

#include "errors.h"

namespace plexus::vulkan {

RawBuffer create_raw_buffer(VkDevice dev, VkDeviceSize size, uint32_t type, bool map) {
  RawBuffer b;
  b.size = size;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
             VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
             VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(dev, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b.buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  VkResult r = vkAllocateMemory(dev, &ai, nullptr, &b.memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(dev, b.buffer, nullptr);
    vk_check(r, "vkAllocateMemory");
  }
  try {
    vk_check(vkBindBufferMemory(dev, b.buffer, b.memory, 0), "vkBindBufferMemory");
    if (map) {
      void* p = nullptr;
      vk_check(vkMapMemory(dev, b.memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
      b.mapped = static_cast<uint8_t*>(p);
    }
  } catch (...) {
    destroy_raw_buffer(dev, b);
    throw;
  }
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = b.buffer;
  b.address = vkGetBufferDeviceAddress(dev, &info);
  return b;
}

void destroy_raw_buffer(VkDevice dev, RawBuffer& b) {
  if (b.buffer) vkDestroyBuffer(dev, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(dev, b.memory, nullptr);  // unmaps too
  b = RawBuffer{};
}

}  // namespace plexus::vulkan
