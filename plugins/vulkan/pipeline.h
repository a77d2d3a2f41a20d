// Compute pipelines, created on first use per (module, specialization
// constants) and cached for the device's life. Two layouts, both with 128
// bytes of push constants: the plain one has no descriptor sets (shaders reach
// memory through buffer device addresses carried in the push constants); the
// packed one (only with VK_KHR_push_descriptor) adds one pushed set of a
// storage buffer (binding 0) and four uniform texel buffers (bindings 1-4),
// for the "*_packed" modules (shaders/elementwise.glsl).
#pragma once

#include <initializer_list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "vk.h"

namespace plexus::vulkan {

class Pipelines {
 public:
  static constexpr uint32_t kPushConstantBytes = 128;
  static constexpr uint32_t kPackedBindings = 5;
  // `packed_layout`: also make the packed layout (the device has push descriptors).
  Pipelines(VkDevice dev, bool packed_layout);
  ~Pipelines();
  VkPipelineLayout layout() const { return layout_; }
  VkPipelineLayout packed_layout() const { return packed_layout_; }
  // Specialization constant i (constant_id = i) gets spec[i]; `packed`: the
  // pipeline uses the packed layout.
  VkPipeline get(const char* module, std::initializer_list<int32_t> spec, bool packed = false);
  // A pipeline of SPIR-V made at run time (graph.cpp), with `layout`; the
  // caller destroys it. `what` names it in errors.
  VkPipeline build(const std::vector<uint32_t>& spirv, VkPipelineLayout layout,
                   const std::string& what);

 private:
  VkPipeline create(VkShaderModule module, const VkSpecializationInfo* spec,
                    VkPipelineLayout layout, const std::string& what);

  VkDevice dev_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout packed_set_ = VK_NULL_HANDLE;
  VkPipelineLayout packed_layout_ = VK_NULL_HANDLE;
  std::mutex mu_;
  std::unordered_map<std::string, VkShaderModule> modules_;
  std::unordered_map<std::string, VkPipeline> pipelines_;
};

}  // namespace plexus::vulkan
