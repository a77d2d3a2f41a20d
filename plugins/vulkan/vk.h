// Vulkan through a loader opened at run time: the functions this plugin calls,
// as pointers filled by load_vulkan(), so the plugin loads (and reports 0
// devices with the reason) on a machine without libvulkan. Also the one way a
// failed Vulkan call becomes an sdk::Error naming the call.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

#include "plexus/plugin.hpp"

namespace plexus::vulkan {

// Every Vulkan function the plugin uses (instance-level pointers, which work
// for every device through the loader).
#define PLEXUS_VK_FUNCTIONS(X)                                                                   \
  X(vkCreateInstance)                                                                            \
  X(vkEnumerateInstanceVersion)                                                                  \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties2) X(        \
      vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceMemoryProperties)                       \
      X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkCreateDevice) X(vkDestroyDevice) X(        \
          vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkQueueSubmit) X(vkAllocateMemory)             \
          X(vkFreeMemory) X(vkMapMemory) X(vkCreateBuffer) X(vkDestroyBuffer) X(                 \
              vkBindBufferMemory) X(vkGetBufferMemoryRequirements) X(vkGetBufferDeviceAddress)   \
              X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkResetCommandPool) X(            \
                  vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer)        \
                  X(vkCmdCopyBuffer) X(vkCmdFillBuffer) X(vkCmdPipelineBarrier) X(               \
                      vkCmdBindPipeline) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCreateFence) \
                      X(vkDestroyFence) X(vkGetFenceStatus) X(vkResetFences) X(vkWaitForFences)  \
                          X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores)         \
                              X(vkCreateShaderModule) X(vkDestroyShaderModule)                   \
                                  X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)           \
                                      X(vkCreateComputePipelines) X(vkDestroyPipeline)           \
                                          X(vkCreateBufferView) X(vkDestroyBufferView)           \
                                              X(vkCreateDescriptorSetLayout)                     \
                                                  X(vkDestroyDescriptorSetLayout)                \
                                                      X(vkEnumerateDeviceExtensionProperties)    \
                                                          X(vkGetPhysicalDeviceFormatProperties) \
                                                              X(vkGetDeviceProcAddr)

#define PLEXUS_VK_DECLARE(name) extern PFN_##name name;
PLEXUS_VK_FUNCTIONS(PLEXUS_VK_DECLARE)
#undef PLEXUS_VK_DECLARE

// Opens libvulkan.so.1 and fills the pointers; returns "" or why it could not.
std::string load_vulkan();

// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
const char* result_name(VkResult r);

// Throws sdk::Error (OUT_OF_MEMORY for the out-of-memory results, DEVICE
// otherwise) naming `what` and the result, unless r is VK_SUCCESS.
inline void vk_check(VkResult r, const char* what) {
  if (r == VK_SUCCESS) return;
  plexus_status s = (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
                        ? PLEXUS_ERROR_OUT_OF_MEMORY
                        : PLEXUS_ERROR_DEVICE;
  sdk::fail(s, std::string("vulkan: ") + what + " failed: " + result_name(r));
}

}  // namespace plexus::vulkan
