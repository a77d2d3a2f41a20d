// The two pipeline layouts and the cache of pipelines built from the embedded SPIR-V.
#include "pipeline.h"

#include <vector>

#include "errors.h"
#include "shaders.h"

namespace plexus::vulkan {

Pipelines::Pipelines(VkDevice dev, bool packed_layout) : dev_(dev) {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  vk_check(vkCreatePipelineLayout(dev_, &li, nullptr, &layout_), "vkCreatePipelineLayout");
  if (!packed_layout) return;
  VkDescriptorSetLayoutBinding b[kPackedBindings];
  for (uint32_t i = 0; i < kPackedBindings; ++i)
    b[i] = {i, i == 0 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
            1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  si.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  si.bindingCount = kPackedBindings;
  si.pBindings = b;
  VkResult r = vkCreateDescriptorSetLayout(dev_, &si, nullptr, &packed_set_);
  if (r == VK_SUCCESS) {
    li.setLayoutCount = 1;
    li.pSetLayouts = &packed_set_;
    r = vkCreatePipelineLayout(dev_, &li, nullptr, &packed_layout_);
  }
  if (r != VK_SUCCESS) {
    if (packed_set_) vkDestroyDescriptorSetLayout(dev_, packed_set_, nullptr);
    vkDestroyPipelineLayout(dev_, layout_, nullptr);
    vk_check(r, "creating the packed pipeline layout");
  }
}

Pipelines::~Pipelines() {
  for (auto& [k, p] : pipelines_) vkDestroyPipeline(dev_, p, nullptr);
  for (auto& [k, m] : modules_) vkDestroyShaderModule(dev_, m, nullptr);
  vkDestroyPipelineLayout(dev_, layout_, nullptr);
  if (packed_layout_) vkDestroyPipelineLayout(dev_, packed_layout_, nullptr);
  if (packed_set_) vkDestroyDescriptorSetLayout(dev_, packed_set_, nullptr);
}

VkPipeline Pipelines::get(const char* module, std::initializer_list<int32_t> spec, bool packed) {
  if (packed && !packed_layout_)
    sdk::fail(PLEXUS_ERROR_INTERNAL, "vulkan: packed module '{}' without push descriptors", module);
  std::string key(module);
  for (int32_t v : spec) {
    key += ':';
    key += std::to_string(v);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  VkShaderModule& sm = modules_[module];
  if (!sm) {
    const SpirvModule* m = find_spirv(module);
    if (!m) {
      modules_.erase(module);
      sdk::fail(PLEXUS_ERROR_INTERNAL, "vulkan: no shader '{}' embedded", module);
    }
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = m->bytes;
    ci.pCode = m->words;
    VkResult r = vkCreateShaderModule(dev_, &ci, nullptr, &sm);
    if (r != VK_SUCCESS) modules_.erase(module);
    vk_check(r, "vkCreateShaderModule");
  }
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<int32_t> values(spec);
  for (uint32_t i = 0; i < values.size(); ++i)
    entries.push_back({i, uint32_t(i * sizeof(int32_t)), sizeof(int32_t)});
  VkSpecializationInfo si{uint32_t(entries.size()), entries.data(), values.size() * sizeof(int32_t),
                          values.data()};
  VkPipeline p =
      create(sm, entries.empty() ? nullptr : &si, packed ? packed_layout_ : layout_, key);
  pipelines_[key] = p;
  return p;
}

VkPipeline Pipelines::create(VkShaderModule module, const VkSpecializationInfo* spec,
                             VkPipelineLayout layout, const std::string& what) {
  VkComputePipelineCreateInfo pi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pi.stage.module = module;
  pi.stage.pName = "main";
  pi.stage.pSpecializationInfo = spec;
  pi.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  vk_check(vkCreateComputePipelines(dev_, VK_NULL_HANDLE, 1, &pi, nullptr, &p),
           ("vkCreateComputePipelines(" + what + ")").c_str());
  return p;
}

VkPipeline Pipelines::build(const std::vector<uint32_t>& spirv, VkPipelineLayout layout,
                            const std::string& what) {
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = spirv.size() * sizeof(uint32_t);
  ci.pCode = spirv.data();
  VkShaderModule sm = VK_NULL_HANDLE;
  vk_check(vkCreateShaderModule(dev_, &ci, nullptr, &sm), "vkCreateShaderModule");
  VkPipeline p = VK_NULL_HANDLE;
  try {
    p = create(sm, nullptr, layout, what);
  } catch (...) {
    vkDestroyShaderModule(dev_, sm, nullptr);
    throw;
  }
  vkDestroyShaderModule(dev_, sm, nullptr);
  return p;
}

}  // namespace plexus::vulkan
