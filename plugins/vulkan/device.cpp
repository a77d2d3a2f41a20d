// Opening a physical device: the features the shaders need, its compute
// queue, memory types, and what it reports to plexus.
#include "device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "errors.h"

namespace plexus::vulkan {
namespace {

// The features every shader may use; a device lacking one is not offered.
struct Features {
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  Features() {
    f2.pNext = &f11;
    f11.pNext = &f12;
  }
  // "" when everything needed is there, else the missing feature names.
  std::string missing() const {
    std::string m;
    auto need = [&m](VkBool32 have, const char* name) {
      if (!have) m += m.empty() ? name : std::string(", ") + name;
    };
    need(f2.features.shaderInt64, "shaderInt64");
    need(f2.features.shaderFloat64, "shaderFloat64");
    need(f2.features.shaderInt16, "shaderInt16");
    need(f11.storageBuffer16BitAccess, "storageBuffer16BitAccess");
    need(f12.storageBuffer8BitAccess, "storageBuffer8BitAccess");
    need(f12.shaderInt8, "shaderInt8");
    need(f12.shaderFloat16, "shaderFloat16");
    need(f12.bufferDeviceAddress, "bufferDeviceAddress");
    need(f12.timelineSemaphore, "timelineSemaphore");
    need(f12.scalarBlockLayout, "scalarBlockLayout");
    return m;
  }
  // Keeps only what the plugin enables.
  void select() {
    VkPhysicalDeviceFeatures base{};
    base.shaderInt64 = base.shaderFloat64 = base.shaderInt16 = VK_TRUE;
    f2.features = base;
    VkPhysicalDeviceVulkan11Features n11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    n11.storageBuffer16BitAccess = VK_TRUE;
    VkPhysicalDeviceVulkan12Features n12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    n12.storageBuffer8BitAccess = n12.shaderInt8 = n12.shaderFloat16 = VK_TRUE;
    n12.bufferDeviceAddress = n12.timelineSemaphore = n12.scalarBlockLayout = VK_TRUE;
    n11.pNext = &n12;
    f11 = n11;
    f12 = n12;
    f2.pNext = &f11;
    f11.pNext = &f12;
  }
};

const char* vendor_name(uint32_t id) {
  switch (id) {
    case 0x1002:
      return "AMD";
    case 0x10DE:
      return "NVIDIA";
    case 0x8086:
      return "Intel";
    case 0x13B5:
      return "ARM";
    case 0x5143:
      return "Qualcomm";
    case 0x10005:
      return "Mesa";
    default:
      return nullptr;
  }
}

int32_t plexus_kind(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return PLEXUS_DEVICE_KIND_EMULATED;
    case VK_PHYSICAL_DEVICE_TYPE_OTHER:
      return PLEXUS_DEVICE_KIND_ACCELERATOR;
    default:
      return PLEXUS_DEVICE_KIND_GPU;
  }
}

// The properties a device is opened by (the structs chain to each other, so
// the object stays where it was made).
struct Properties {
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties m3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &sub};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
  explicit Properties(VkPhysicalDevice phys) { vkGetPhysicalDeviceProperties2(phys, &p2); }
  Properties(const Properties&) = delete;
  Properties& operator=(const Properties&) = delete;
};

// What the device says about itself: name, vendor, kind, subgroups.
void describe(const Properties& pr, DeviceInfo& info) {
  const VkPhysicalDeviceProperties& p = pr.p2.properties;
  info.name = p.deviceName;
  const char* vendor = vendor_name(p.vendorID);
  char buf[32];
  std::snprintf(buf, sizeof buf, "vendor 0x%04x", p.vendorID);
  info.vendor = vendor ? vendor : buf;
  info.kind = plexus_kind(p.deviceType);
  const VkPhysicalDeviceSubgroupProperties& sub = pr.sub;
  info.subgroup_size = sub.subgroupSize;
  info.subgroup_arithmetic = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  info.subgroup_shuffle8 = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                           (sub.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
                           sub.subgroupSize % 8 == 0;
}

// Throws UNSUPPORTED, naming the device, when it lacks Vulkan 1.2, a feature
// the shaders use or workgroups of 256 invocations.
void check_requirements(VkPhysicalDevice phys, const Properties& pr, const std::string& name) {
  const VkPhysicalDeviceProperties& p = pr.p2.properties;
  if (VK_API_VERSION_MINOR(p.apiVersion) < 2 && VK_API_VERSION_MAJOR(p.apiVersion) == 1)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: Vulkan 1.2 or later is needed", name);
  Features f;
  vkGetPhysicalDeviceFeatures2(phys, &f.f2);
  if (std::string m = f.missing(); !m.empty())
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: lacks {}", name, m);
  // The general shaders run 256 invocations per workgroup (Vulkan only promises 128).
  if (p.limits.maxComputeWorkGroupInvocations < 256 || p.limits.maxComputeWorkGroupSize[0] < 256)
    sdk::fail(
        PLEXUS_ERROR_UNSUPPORTED,
        "{}: workgroups of 256 invocations are needed, the device allows {}", name,
        std::min(p.limits.maxComputeWorkGroupInvocations, p.limits.maxComputeWorkGroupSize[0]));
}

// The memory types the device is used with, and the size of the tensors' heap.
struct MemoryTypes {
  uint32_t device;  // tensors: in the largest device-local heap
  uint32_t host;    // arenas: host-visible and coherent
  VkDeviceSize heap;
  bool mappable;  // the device type is host-visible too
};

MemoryTypes choose_memory_types(VkPhysicalDevice phys, const std::string& name) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(phys, &mp);
  int device_type = -1, host_type = -1;
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags fl = mp.memoryTypes[i].propertyFlags;
    VkDeviceSize heap = mp.memoryHeaps[mp.memoryTypes[i].heapIndex].size;
    if ((fl & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
        (device_type < 0 || heap > mp.memoryHeaps[mp.memoryTypes[device_type].heapIndex].size))
      device_type = int(i);
    const VkMemoryPropertyFlags hv =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((fl & hv) == hv && host_type < 0) host_type = int(i);
  }
  if (device_type < 0 || host_type < 0)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: no device-local or host-coherent memory", name);
  const VkMemoryType& t = mp.memoryTypes[device_type];
  return {uint32_t(device_type), uint32_t(host_type), mp.memoryHeaps[t.heapIndex].size,
          (t.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0};
}

// The first queue family with compute; throws UNSUPPORTED when there is none.
uint32_t compute_family(VkPhysicalDevice phys, const std::string& name) {
  uint32_t nfam = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nfam, nullptr);
  std::vector<VkQueueFamilyProperties> fams(nfam);
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nfam, fams.data());
  for (uint32_t i = 0; i < nfam; ++i)
    if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
  sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: no compute queue", name);
}

}  // namespace

Device::Device(VkPhysicalDevice phys, int32_t index, VkDeviceSize memory_cap) {
  const Properties pr(phys);
  describe(pr, info_);
  check_requirements(phys, pr, info_.name);
  const MemoryTypes mem = choose_memory_types(phys, info_.name);
  host_type_ = mem.host;
  info_.memory = memory_cap > 0 ? std::min(mem.heap, memory_cap) : mem.heap;
  info_.max_allocation = std::min(info_.memory, pr.m3.maxMemoryAllocationSize);
  family_ = compute_family(phys, info_.name);

  const VkPhysicalDeviceLimits& limits = pr.p2.properties.limits;
  info_.packed = packed_supported(phys, limits);
  info_.max_storage_range = limits.maxStorageBufferRange;
  info_.max_stage_storage_buffers =
      std::min(limits.maxPerStageDescriptorStorageBuffers, limits.maxPerStageResources);
  info_.max_stage_texel_buffers =
      std::min(limits.maxPerStageDescriptorSampledImages, limits.maxPerStageResources);
  create_logical_device(phys);
  if (info_.packed) {
    push_descriptor_set_ = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
        vkGetDeviceProcAddr(dev_, "vkCmdPushDescriptorSetKHR"));
    info_.packed = push_descriptor_set_ != nullptr;
  }
  memory_.init(dev_, mem.device, mem.mappable, info_.max_allocation, info_.memory,
               "vulkan:" + std::to_string(index));
  if (info_.packed) memory_.enable_texel_views(limits.maxTexelBufferElements);
  pipelines_ = std::make_unique<Pipelines>(dev_, info_.packed);
  init_stream(default_stream_);
  streams_.push_back(&default_stream_);
}

bool Device::packed_supported(VkPhysicalDevice phys, const VkPhysicalDeviceLimits& limits) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, ext.data());
  bool push = false;
  for (const VkExtensionProperties& e : ext)
    push = push || std::strcmp(e.extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0;
  VkFormatProperties fp{}, fp32{};
  vkGetPhysicalDeviceFormatProperties(phys, VK_FORMAT_R32G32B32A32_UINT, &fp);
  vkGetPhysicalDeviceFormatProperties(phys, VK_FORMAT_R32_UINT, &fp32);
  // A 256 MiB block must fit one view of 4-byte texels; offsets are 16-byte aligned;
  // the packed elementwise shaders run 1024 invocations per workgroup.
  return push && limits.maxComputeWorkGroupInvocations >= 1024 &&
         limits.maxComputeWorkGroupSize[0] >= 1024 &&
         (fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) &&
         (fp32.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) &&
         limits.maxTexelBufferElements >= (uint32_t{256} << 20) / 4 &&
         limits.minTexelBufferOffsetAlignment <= 16 &&
         limits.minStorageBufferOffsetAlignment <= 16 && limits.maxStorageBufferRange >= 65536;
}

void Device::create_logical_device(VkPhysicalDevice phys) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  Features f;
  f.select();
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f.f2};
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  const char* extensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (info_.packed) {
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = extensions;
  }
  vk_check(vkCreateDevice(phys, &di, nullptr, &dev_), "vkCreateDevice");
  vkGetDeviceQueue(dev_, family_, 0, &queue_);
}

Device::~Device() {
  if (!dev_) return;
  vkDeviceWaitIdle(dev_);
  retire();
  for (auto& [a, serial] : deferred_) memory_.release(a);
  deferred_.clear();
  pipelines_.reset();
  for (Stream* s : streams_) vkDestroySemaphore(dev_, s->timeline, nullptr);
  for (auto& s : retired_) vkDestroySemaphore(dev_, s->timeline, nullptr);
  for (auto& b : batches_) {
    b->arena.reset();
    vkDestroyFence(dev_, b->fence, nullptr);
    vkDestroyCommandPool(dev_, b->pool, nullptr);
  }
  memory_.destroy();
  vkDestroyDevice(dev_, nullptr);
}

Allocation* Device::allocate(size_t nbytes) {
  retire();
  try {
    return memory_.allocate(nbytes);
  } catch (const sdk::Error& e) {
    if (e.status() != PLEXUS_ERROR_OUT_OF_MEMORY) throw;
  }
  synchronize();  // memory waiting for queued work to finish may be enough
  return memory_.allocate(nbytes);
}

void Device::deallocate(Allocation* a) {
  {
    std::lock_guard<std::mutex> lock(life_mu_);
    if (!live_serials_.empty()) {
      deferred_.emplace_back(a, next_serial_ - 1);
      return;
    }
  }
  memory_.release(a);
}

}  // namespace plexus::vulkan
