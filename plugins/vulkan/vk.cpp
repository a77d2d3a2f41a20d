#include "vk.h"

#include <dlfcn.h>

namespace plexus::vulkan {

#define PLEXUS_VK_DEFINE(name) PFN_##name name = nullptr;
PLEXUS_VK_FUNCTIONS(PLEXUS_VK_DEFINE)
#undef PLEXUS_VK_DEFINE

std::string load_vulkan() {
  // Kept open for the life of the process: the ICDs it loads must not go away.
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return std::string("Vulkan loader not found (libvulkan.so.1: ") + dlerror() + ")";
  std::string missing;
#define PLEXUS_VK_LOAD(name)                              \
  name = reinterpret_cast<PFN_##name>(dlsym(lib, #name)); \
  if (!name) missing += missing.empty() ? #name : ", " #name;
  PLEXUS_VK_FUNCTIONS(PLEXUS_VK_LOAD)
#undef PLEXUS_VK_LOAD
  if (!missing.empty()) return "the Vulkan loader lacks " + missing + " (needs Vulkan 1.2)";
  return "";
}

const char* result_name(VkResult r) {
  switch (r) {
#define PLEXUS_VK_RESULT(x) \
  case x:                   \
    return #x;
    PLEXUS_VK_RESULT(VK_SUCCESS)
    PLEXUS_VK_RESULT(VK_NOT_READY)
    PLEXUS_VK_RESULT(VK_TIMEOUT)
    PLEXUS_VK_RESULT(VK_INCOMPLETE)
    PLEXUS_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    PLEXUS_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    PLEXUS_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    PLEXUS_VK_RESULT(VK_ERROR_DEVICE_LOST)
    PLEXUS_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    PLEXUS_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    PLEXUS_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    PLEXUS_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    PLEXUS_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    PLEXUS_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    PLEXUS_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    PLEXUS_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    PLEXUS_VK_RESULT(VK_ERROR_UNKNOWN)
    PLEXUS_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    PLEXUS_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    PLEXUS_VK_RESULT(VK_ERROR_FRAGMENTATION)
    PLEXUS_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
#undef PLEXUS_VK_RESULT
    default:
      return "VkResult (unknown value)";
  }
}

}  // namespace plexus::vulkan
