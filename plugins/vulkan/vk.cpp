// The Vulkan function pointers and load_vulkan(), which fills them from libvulkan.so.1.
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

}  // namespace plexus::vulkan
