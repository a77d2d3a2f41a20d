// Compute pipelines, created on first use per (module, specialization
// constants) and cached for the device's life. Every pipeline shares one
// layout: 128 bytes of push constants and no descriptor sets (shaders reach
// memory through buffer device addresses carried in the push constants).
#pragma once

#include <initializer_list>
#include <mutex>
#include <string>
#include <unordered_map>

#include "vk.h"

namespace plexus::vulkan {

class Pipelines {
 public:
  static constexpr uint32_t kPushConstantBytes = 128;
  explicit Pipelines(VkDevice dev);
  ~Pipelines();
  VkPipelineLayout layout() const { return layout_; }
  // Specialization constant i (constant_id = i) gets spec[i].
  VkPipeline get(const char* module, std::initializer_list<int32_t> spec);

 private:
  VkDevice dev_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::mutex mu_;
  std::unordered_map<std::string, VkShaderModule> modules_;
  std::unordered_map<std::string, VkPipeline> pipelines_;
};

}  // namespace plexus::vulkan
