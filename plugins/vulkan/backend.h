// The "vulkan" device type: every physical device with a compute queue that
// has the features the shaders need, as plexus devices vulkan:0, vulkan:1, ...
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "plexus/plugin.hpp"

namespace plexus::vulkan {

class VulkanBackend : public sdk::Backend<VulkanBackend> {
 public:
  // Reads the plugin's options; Vulkan itself is loaded and the devices
  // opened on first need (open()), since creating an instance costs lavapipe
  // 100-400 ms that a process which never uses vulkan should not pay. A
  // missing loader or device is not an error (0 devices, with the reason).
  // Honours the plugin option exclude_cpu_devices = "true" (leaves out
  // CPU-type devices such as lavapipe).
  explicit VulkanBackend(const plexus_host_api* host);
  ~VulkanBackend();

  // The device a kernel call runs on; throws NOT_FOUND for a bad index.
  Device& device(int32_t index);

  int32_t device_count() {
    open();
    return int32_t(devices_.size());
  }
  const char* unavailable_reason() {
    open();
    return devices_.empty() ? reason_.c_str() : nullptr;
  }
  void properties(int32_t device, plexus_device_properties& out);
  void* allocate(int32_t device, size_t nbytes);
  void deallocate(int32_t device, void* ptr, size_t nbytes);
  void memset(int32_t device, void* ptr, size_t offset, int32_t value, size_t nbytes, void* stream);
  void copy_host_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                           size_t nbytes, void* stream);
  void copy_device_to_host(int32_t device, void* dst, const void* src, size_t src_offset,
                           size_t nbytes, void* stream);
  void copy_device_to_device(int32_t device, void* dst, size_t dst_offset, const void* src,
                             size_t src_offset, size_t nbytes, void* stream);
  void synchronize(int32_t device);
  void* stream_create(int32_t device);
  void stream_destroy(int32_t device, void* stream);
  void stream_synchronize(int32_t device, void* stream);
  void* event_create(int32_t device);
  void event_destroy(int32_t device, void* event);
  void event_record(int32_t device, void* event, void* stream);
  void event_wait(int32_t device, void* event, void* stream);
  void event_synchronize(int32_t device, void* event);

 private:
  // Loads Vulkan and opens the devices, once (thread-safe).
  void open();
  void open_devices();

  const plexus_host_api* host_;  // valid until the plugin's shutdown
  VkDeviceSize memory_cap_ = 0;
  bool exclude_cpu_ = false;
  std::once_flag opened_;
  VkInstance instance_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<Device>> devices_;
  std::string reason_;
};

}  // namespace plexus::vulkan
