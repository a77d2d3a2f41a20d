// Vulkan through a loader opened at run time: the functions this plugin calls,
// as pointers filled by load_vulkan(), so the plugin loads (and reports 0
// devices with the reason) on a machine without libvulkan.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace plexus::vulkan {

// Every Vulkan function the plugin uses (instance-level pointers, which work
// for every device through the loader).
// clang-format off
#define PLEXUS_VK_FUNCTIONS(X) \
  X(vkCreateInstance) \
  X(vkEnumerateInstanceVersion) \
  X(vkDestroyInstance) \
  X(vkEnumeratePhysicalDevices) \
  X(vkGetPhysicalDeviceProperties2) \
  X(vkGetPhysicalDeviceFeatures2) \
  X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkCreateDevice) \
  X(vkDestroyDevice) \
  X(vkGetDeviceQueue) \
  X(vkDeviceWaitIdle) \
  X(vkQueueSubmit) \
  X(vkAllocateMemory) \
  X(vkFreeMemory) \
  X(vkMapMemory) \
  X(vkCreateBuffer) \
  X(vkDestroyBuffer) \
  X(vkBindBufferMemory) \
  X(vkGetBufferMemoryRequirements) \
  X(vkGetBufferDeviceAddress) \
  X(vkCreateCommandPool) \
  X(vkDestroyCommandPool) \
  X(vkResetCommandPool) \
  X(vkAllocateCommandBuffers) \
  X(vkBeginCommandBuffer) \
  X(vkEndCommandBuffer) \
  X(vkCmdCopyBuffer) \
  X(vkCmdFillBuffer) \
  X(vkCmdPipelineBarrier) \
  X(vkCmdBindPipeline) \
  X(vkCmdPushConstants) \
  X(vkCmdDispatch) \
  X(vkCreateFence) \
  X(vkDestroyFence) \
  X(vkGetFenceStatus) \
  X(vkResetFences) \
  X(vkWaitForFences) \
  X(vkCreateSemaphore) \
  X(vkDestroySemaphore) \
  X(vkWaitSemaphores) \
  X(vkCreateShaderModule) \
  X(vkDestroyShaderModule) \
  X(vkCreatePipelineLayout) \
  X(vkDestroyPipelineLayout) \
  X(vkCreateComputePipelines) \
  X(vkDestroyPipeline) \
  X(vkCreateBufferView) \
  X(vkDestroyBufferView) \
  X(vkCreateDescriptorSetLayout) \
  X(vkDestroyDescriptorSetLayout) \
  X(vkEnumerateDeviceExtensionProperties) \
  X(vkGetPhysicalDeviceFormatProperties) \
  X(vkGetDeviceProcAddr)
// clang-format on

#define PLEXUS_VK_DECLARE(name) extern PFN_##name name;
PLEXUS_VK_FUNCTIONS(PLEXUS_VK_DECLARE)
#undef PLEXUS_VK_DECLARE

// Opens libvulkan.so.1 and fills the pointers; returns "" or why it could not.
std::string load_vulkan();

}  // namespace plexus::vulkan
