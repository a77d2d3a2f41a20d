// How the plugin's errors are raised: a failed Vulkan call becomes an
// sdk::Error naming the call and its VkResult (the one way; see vk_check).
#pragma once

#include <string>

#include "plexus/plugin.hpp"
#include "vk.h"

namespace plexus::vulkan {

// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
const char* result_name(VkResult r);

// Throws sdk::Error (OUT_OF_MEMORY for the out-of-memory results, DEVICE
// otherwise) naming `what` and the result, unless r is VK_SUCCESS.
inline void vk_check(VkResult r, const char* what) {
  if (r == VK_SUCCESS) return;
  plexus_status s = (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
                        ? PLEXUS_ERROR_OUT_OF_MEMORY
                        : PLEXUS_ERROR_DEVICE;
  sdk::fail(s, "vulkan: {} failed: {}", what, result_name(r));
}

}  // namespace plexus::vulkan
