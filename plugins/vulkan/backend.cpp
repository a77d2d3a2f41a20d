// VulkanBackend: the instance, the devices, and the ABI's memory/copy/stream/event calls.
#include "backend.h"

#include <charconv>
#include <cstring>

#include "errors.h"

namespace plexus::vulkan {
namespace {

Allocation* as_allocation(const void* p) {
  return static_cast<Allocation*>(const_cast<void*>(p));
}

void check_range(const Allocation* a, size_t offset, size_t n, const char* what) {
  if (offset > a->size || n > a->size - offset)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "vulkan {}: bytes [{}, {}) outside an allocation of {} bytes", what, offset,
              offset + n, a->size);
}

// The plugin option max_device_memory: bytes each device may hold at most
// (for a device shared with other programs, and for the out-of-memory
// tests); 0 or absent: the whole heap.
VkDeviceSize memory_cap_option(const plexus_host_api* host) {
  const std::string text = sdk::option(host, "max_device_memory");
  if (text.empty()) return 0;
  VkDeviceSize bytes = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec != std::errc() || end != text.data() + text.size())
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "option max_device_memory = '{}': expected a number of bytes", text);
  return bytes;
}

}  // namespace

VulkanBackend::VulkanBackend(const plexus_host_api* host)
    // A bad option fails init, as the gpu plugins' do.
    : host_(host),
      memory_cap_(memory_cap_option(host)),
      exclude_cpu_(sdk::option(host, "exclude_cpu_devices") == "true") {}

void VulkanBackend::open() {
  std::call_once(opened_, [this] {
    reason_ = load_vulkan();
    if (!reason_.empty()) return;
    try {
      open_devices();
    } catch (const std::exception& e) {
      devices_.clear();
      reason_ = e.what();
    }
  });
}

void VulkanBackend::open_devices() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "plexus";
  app.pEngineName = "plexus";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  VkResult r = vkCreateInstance(&ii, nullptr, &instance_);
  if (r != VK_SUCCESS) {
    reason_ = std::string("vkCreateInstance failed: ") + result_name(r) + " (no Vulkan driver?)";
    return;
  }
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> phys(n);
  vkEnumeratePhysicalDevices(instance_, &n, phys.data());
  std::string skipped;
  for (VkPhysicalDevice p : phys) {
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    vkGetPhysicalDeviceProperties2(p, &p2);
    props = p2.properties;
    if (exclude_cpu_ && props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
      skipped += std::string(skipped.empty() ? "" : "; ") + props.deviceName +
                 " excluded (exclude_cpu_devices = true)";
      continue;
    }
    try {
      devices_.push_back(std::make_unique<Device>(p, int32_t(devices_.size()), memory_cap_));
    } catch (const std::exception& e) {
      skipped += std::string(skipped.empty() ? "" : "; ") + e.what();
      sdk::log(host_, PLEXUS_LOG_WARN, std::string("vulkan device not used: ") + e.what());
    }
  }
  if (devices_.empty())
    reason_ = n == 0 ? "no Vulkan device (the loader found no driver with a device)"
                     : "no usable Vulkan device: " + skipped;
}

VulkanBackend::~VulkanBackend() {
  devices_.clear();
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Device& VulkanBackend::device(int32_t index) {
  open();
  if (index < 0 || index >= int32_t(devices_.size()))
    sdk::fail(PLEXUS_ERROR_NOT_FOUND, "vulkan:{}: no such device ({} devices)", index,
              devices_.size());
  return *devices_[size_t(index)];
}

void VulkanBackend::properties(int32_t index, plexus_device_properties& out) {
  const DeviceInfo& info = device(index).info();
  sdk::copy_string(out.name, info.name.c_str());
  sdk::copy_string(out.vendor, info.vendor.c_str());
  out.kind = info.kind;
  out.capabilities = PLEXUS_CAP_ASYNC;
  out.total_memory = info.memory;
  out.dtypes = sdk::kAllDTypes;
}

void* VulkanBackend::allocate(int32_t index, size_t nbytes) {
  return device(index).allocate(nbytes);
}
void VulkanBackend::deallocate(int32_t index, void* ptr, size_t) {
  if (ptr) device(index).deallocate(as_allocation(ptr));
}
void VulkanBackend::memset(int32_t index, void* ptr, size_t offset, int32_t value, size_t n,
                           void* stream) {
  check_range(as_allocation(ptr), offset, n, "memset");
  device(index).memset(stream, as_allocation(ptr), offset, uint8_t(value), n);
}
void VulkanBackend::copy_host_to_device(int32_t index, void* dst, size_t off, const void* src,
                                        size_t n, void* stream) {
  check_range(as_allocation(dst), off, n, "copy_host_to_device");
  device(index).copy_from_host(stream, as_allocation(dst), off, src, n);
}
void VulkanBackend::copy_device_to_host(int32_t index, void* dst, const void* src, size_t off,
                                        size_t n, void* stream) {
  check_range(as_allocation(src), off, n, "copy_device_to_host");
  device(index).copy_to_host(stream, dst, as_allocation(src), off, n);
}
void VulkanBackend::copy_device_to_device(int32_t index, void* dst, size_t doff, const void* src,
                                          size_t soff, size_t n, void* stream) {
  check_range(as_allocation(dst), doff, n, "copy_device_to_device (destination)");
  check_range(as_allocation(src), soff, n, "copy_device_to_device (source)");
  device(index).copy_on_device(stream, as_allocation(dst), doff, as_allocation(src), soff, n);
}
void VulkanBackend::synchronize(int32_t index) {
  device(index).synchronize();
}

void* VulkanBackend::stream_create(int32_t index) {
  return device(index).create_stream();
}
void VulkanBackend::stream_destroy(int32_t index, void* s) {
  if (s) device(index).destroy_stream(static_cast<Stream*>(s));
}
void VulkanBackend::stream_synchronize(int32_t index, void* s) {
  device(index).synchronize_stream(s);
}
void* VulkanBackend::event_create(int32_t index) {
  device(index);
  return new Event;
}
void VulkanBackend::event_destroy(int32_t, void* e) {
  delete static_cast<Event*>(e);
}
void VulkanBackend::event_record(int32_t index, void* e, void* s) {
  device(index).record_event(static_cast<Event*>(e), s);
}
void VulkanBackend::event_wait(int32_t index, void* e, void* s) {
  device(index).wait_event(static_cast<Event*>(e), s);
}
void VulkanBackend::event_synchronize(int32_t index, void* e) {
  device(index).synchronize_event(static_cast<Event*>(e));
}

}  // namespace plexus::vulkan
