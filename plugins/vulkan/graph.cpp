// The vulkan plugin's graph compiler (plugin ABI 1.1, plexus_graph_extension):
// a chain of float32 elementwise ops (what the host's fusion pass offers,
// read by sdk::read_fused_graph) becomes one compute shader, written here as
// GLSL and compiled at run time (glsl.h). Each op's formula is the one its
// eager kernel uses (shaders/binary.comp, unary.comp, pointwise.comp,
// compare.comp, and the host's composites for the activation gradients),
// with every intermediate `precise`, so a chain rounds as the ops run one by
// one do; transcendental functions are math.glsl's, in double.
//
// Two variants of every chain:
// - general: any strides (broadcast inputs, bool masks), tensors reached by
//   buffer device address, one element per invocation step, the layout
//   collapsed and carried as metadata (as launch_elementwise does);
// - packed: when every tensor is float32, dense, of the chain's shape and
//   starts on 16 bytes, and the device has push descriptors: inputs are read
//   as 16-byte texels and outputs written as 16-byte stores, four elements at
//   a time, as the eager kernels' packed path does (launch.cpp), because on
//   lavapipe that is several times faster than loads by address. Elements
//   past the last multiple of 4 run through the general variant.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "errors.h"
#include "glsl.h"
#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/fused_graph.hpp"

namespace plexus::vulkan {
namespace {

using Kind = sdk::FusedRegister::Kind;
using Code = sdk::FusedCode;

// Vulkan's least maxPushDescriptors (every device with push descriptors
// offers 32), and the packed variant's push constants (n, then each input's
// first texel).
constexpr size_t kMaxPackedBindings = 32;
constexpr size_t kMaxPackedInputs = Pipelines::kPushConstantBytes / 4 - 1;

// A float as GLSL that reads back the same bits.
std::string literal(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return fmt::format("uintBitsToFloat(0x{:08x}u)", u);
}

// GLSL statements that compute every register after the inputs (which the
// caller has loaded into `float r<k>`), each into `precise float r<k>`.
std::string chain_body(const sdk::FusedProgram& p, const char* indent) {
  std::string out;
  for (size_t k = 0; k < p.regs.size(); ++k) {
    const sdk::FusedRegister& r = p.regs[k];
    if (r.kind == Kind::Input) continue;
    if (r.kind == Kind::Constant) {
      out += fmt::format("{}const float r{} = {};\n", indent, k, literal(r.value));
      continue;
    }
    const std::string a = fmt::format("r{}", r.a), b = fmt::format("r{}", r.b),
                      c = fmt::format("r{}", r.c), s = literal(r.scalar);
    std::string e;
    switch (r.code) {
      case Code::Add:
        e = a + " + " + s + " * " + b;
        break;
      case Code::Sub:
        e = a + " - " + s + " * " + b;
        break;
      case Code::Mul:
        e = a + " * " + b;
        break;
      case Code::Div:
        e = a + " / " + b;
        break;
      case Code::PowTT:
        e = fmt::format("float(pow_d(double({}), double({})))", a, b);
        break;
      case Code::PowTS:  // binary.comp's exact forms of common exponents
        if (r.scalar == 0.5f)
          e = "sqrt(" + a + ")";
        else if (r.scalar == -0.5f)
          e = "1.0 / sqrt(" + a + ")";
        else if (r.scalar == -1.0f)
          e = "1.0 / " + a;
        else
          e = fmt::format("float(pow_d(double({}), double({})))", a, s);
        break;
      case Code::Neg:
        e = "-" + a;
        break;
      case Code::Abs:
        e = "abs(" + a + ")";
        break;
      case Code::Relu:
        e = fmt::format("{0} < 0.0 ? 0.0 : {0}", a);
        break;
      case Code::Sqrt:
        e = "sqrt(" + a + ")";
        break;
      case Code::Rsqrt:
        e = "1.0 / sqrt(" + a + ")";
        break;
      case Code::Exp:
        e = "float(exp_d(double(" + a + ")))";
        break;
      case Code::Log:
        e = "float(log_d(double(" + a + ")))";
        break;
      case Code::Tanh:
        e = "float(tanh_d(double(" + a + ")))";
        break;
      case Code::Sigmoid:
        e = "float(sigmoid_d(double(" + a + ")))";
        break;
      case Code::Lerp:
        e = std::abs(r.scalar) < 0.5f ? fmt::format("{0} + {2} * ({1} - {0})", a, b, s)
                                      : fmt::format("{1} - ({1} - {0}) * (1.0 - {2})", a, b, s);
        break;
      case Code::Addcmul:
        e = a + " + " + s + " * " + b + " * " + c;
        break;
      case Code::Addcdiv:
        e = a + " + " + s + " * " + b + " / " + c;
        break;
      case Code::GtS:
        e = a + " > " + s + " ? 1.0 : 0.0";
        break;
      case Code::Cast:
        e = a;
        break;
      case Code::ThresholdBackward:
        e = b + " > " + s + " ? " + a + " : 0.0";
        break;
      case Code::SigmoidBackward:
        e = fmt::format("{0} * ({1} * (1.0 - {1}))", a, b);
        break;
      case Code::TanhBackward:
        e = fmt::format("{0} * (1.0 - {1} * {1})", a, b);
        break;
    }
    out += fmt::format("{}precise float r{} = {};\n", indent, k, e);
  }
  return out;
}

std::string prelude() {
  return std::string("#version 460\n") + glsl_header("common.glsl") + glsl_header("math.glsl");
}

// The general variant. Metadata (int words at pc.meta): each slot's address
// as two words (inputs, then outputs), the collapsed sizes, then each
// slot's strides over them.
std::string general_source(const sdk::FusedProgram& p, size_t num_inputs) {
  const size_t slots = num_inputs + p.outputs.size();
  std::string s = prelude();
  s += R"(
layout(local_size_x = 256) in;
layout(push_constant, scalar) uniform Push { uint64_t meta; uint first; uint n; int ndim; } pc;
void main() {
  Meta m = Meta(pc.meta);
  const int nd = pc.ndim;
  const uint n = pc.n;
)";
  for (size_t k = 0; k < slots; ++k)
    s += fmt::format(
        "  const uint64_t t{0} = packUint2x32(uvec2(uint(m.v[{1}]), uint(m.v[{2}])));\n", k, 2 * k,
        2 * k + 1);
  s += "  for (uint i = pc.first + gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) "
       "{\n";
  for (size_t k = 0; k < slots; ++k) s += fmt::format("    int o{} = 0;\n", k);
  s += fmt::format(
      "    uint rest = i;\n    for (int d = nd - 1; d >= 0; --d) {{\n"
      "      uint size = uint(m.v[{0} + d]);\n"
      "      int idx = int(rest % size);\n      rest /= size;\n",
      2 * slots);
  for (size_t k = 0; k < slots; ++k)
    s += fmt::format("      o{0} += idx * m.v[{1} + nd * {2} + d];\n", k, 2 * slots, k + 1);
  s += "    }\n";
  for (size_t k = 0; k < p.regs.size(); ++k) {
    const sdk::FusedRegister& r = p.regs[k];
    if (r.kind != Kind::Input) continue;
    if (r.is_bool)
      s += fmt::format("    float r{0} = BufU8(t{1}).v[o{1}] != uint8_t(0) ? 1.0 : 0.0;\n", k,
                       r.input);
    else
      s += fmt::format("    float r{0} = BufF32(t{1}).v[o{1}];\n", k, r.input);
  }
  s += chain_body(p, "    ");
  for (size_t o = 0; o < p.outputs.size(); ++o) {
    const size_t slot = num_inputs + o;
    if (p.output_is_bool[o])
      s += fmt::format("    BufU8(t{0}).v[o{0}] = uint8_t(r{1} != 0.0 ? 1 : 0);\n", slot,
                       p.outputs[o]);
    else
      s += fmt::format("    BufF32(t{0}).v[o{0}] = r{1};\n", slot, p.outputs[o]);
  }
  s += "  }\n}\n";
  return s;
}

// The packed variant: output o at binding o (a storage buffer starting at
// its first element), input j at binding outputs + j (its block's texel
// view; pc.first[j] is its first texel).
std::string packed_source(const sdk::FusedProgram& p, size_t num_inputs) {
  const size_t outs = p.outputs.size();
  std::string s = prelude();
  s += "#extension GL_EXT_control_flow_attributes : require\n";
  s += "layout(local_size_x = 1024) in;\n";
  for (size_t o = 0; o < outs; ++o)
    s += fmt::format(
        "layout(std430, binding = {0}) writeonly buffer Out{0} {{ u64vec2 q[]; }} out{0};\n", o);
  for (size_t j = 0; j < num_inputs; ++j)
    s += fmt::format("layout(binding = {}) uniform usamplerBuffer in{};\n", outs + j, j);
  s += fmt::format("layout(push_constant) uniform Push {{ uint n; int first[{}]; }} pc;\n",
                   std::max<size_t>(num_inputs, 1));
  s += "void main() {\n  const uint quads = pc.n / 4u;\n";
  for (size_t j = 0; j < num_inputs; ++j)
    s += fmt::format("  const int f{0} = pc.first[{0}];\n", j);
  s += "  [[unroll]] for (uint k = 0u; k < 4u; ++k) {\n"
       "    const uint q = gl_WorkGroupID.x * 4096u + gl_LocalInvocationID.x + k * 1024u;\n"
       "    if (q < quads) {\n";
  std::vector<bool> loaded(num_inputs, false);
  for (const sdk::FusedRegister& r : p.regs)
    if (r.kind == Kind::Input && !loaded[size_t(r.input)]) {
      loaded[size_t(r.input)] = true;
      s += fmt::format(
          "      const vec4 x{0} = uintBitsToFloat(texelFetch(in{0}, f{0} + int(q)));\n", r.input);
    }
  for (size_t o = 0; o < outs; ++o) s += fmt::format("      vec4 y{};\n", o);
  s += "      [[unroll]] for (int c = 0; c < 4; ++c) {\n";
  for (size_t k = 0; k < p.regs.size(); ++k)
    if (p.regs[k].kind == Kind::Input)
      s += fmt::format("        float r{} = x{}[c];\n", k, p.regs[k].input);
  s += chain_body(p, "        ");
  for (size_t o = 0; o < outs; ++o) s += fmt::format("        y{}[c] = r{};\n", o, p.outputs[o]);
  s += "      }\n";
  for (size_t o = 0; o < outs; ++o)
    s += fmt::format(
        "      {{ uvec4 u = floatBitsToUint(y{0}); "
        "out{0}.q[q] = u64vec2(packUint2x32(u.xy), packUint2x32(u.zw)); }}\n",
        o);
  s += "    }\n  }\n}\n";
  return s;
}

struct Context {
  const plexus_host_api* host = nullptr;
  VulkanBackend* backend = nullptr;
};
Context g_context;

struct Compiled {
  Device* dev = nullptr;
  std::vector<int64_t> shape;
  size_t num_inputs = 0, num_outputs = 0;
  VkPipeline general = VK_NULL_HANDLE;
  // The packed variant (VK_NULL_HANDLE when the chain cannot take it).
  VkPipeline packed = VK_NULL_HANDLE;
  VkDescriptorSetLayout packed_set = VK_NULL_HANDLE;
  VkPipelineLayout packed_layout = VK_NULL_HANDLE;

  ~Compiled() {
    if (!dev) return;
    dev->synchronize();  // no recorded dispatch may still name the pipelines
    VkDevice d = dev->handle();
    if (general) vkDestroyPipeline(d, general, nullptr);
    if (packed) vkDestroyPipeline(d, packed, nullptr);
    if (packed_layout) vkDestroyPipelineLayout(d, packed_layout, nullptr);
    if (packed_set) vkDestroyDescriptorSetLayout(d, packed_set, nullptr);
  }
};

// The packed variant's layout: `outs` storage buffers, then `ins` uniform
// texel buffers, pushed per dispatch; 128 bytes of push constants.
void make_packed_layout(Compiled& c, size_t outs, size_t ins) {
  std::vector<VkDescriptorSetLayoutBinding> b;
  for (uint32_t i = 0; i < outs + ins; ++i)
    b.push_back(
        {i, i < outs ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
         1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  si.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  si.bindingCount = uint32_t(b.size());
  si.pBindings = b.data();
  vk_check(vkCreateDescriptorSetLayout(c.dev->handle(), &si, nullptr, &c.packed_set),
           "vkCreateDescriptorSetLayout (graph)");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, Pipelines::kPushConstantBytes};
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = 1;
  li.pSetLayouts = &c.packed_set;
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  vk_check(vkCreatePipelineLayout(c.dev->handle(), &li, nullptr, &c.packed_layout),
           "vkCreatePipelineLayout (graph)");
}

// Records elements [first, n) of the chain with the general variant.
void run_general(Compiled& c, void* stream, const std::vector<const plexus_tensor*>& slots,
                 int64_t first, int64_t n) {
  // Collapse the shape: drop size-1 dims, merge a dim into the next when
  // every slot steps over both as one.
  std::vector<std::vector<int64_t>> strides;
  for (const plexus_tensor* t : slots) strides.push_back(sdk::broadcast_strides(*t, c.shape));
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> st(slots.size());
  for (size_t d = 0; d < c.shape.size(); ++d) {
    if (c.shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (size_t k = 0; k < slots.size() && merge; ++k)
      merge = st[k].back() == strides[k][d] * c.shape[d];
    if (merge) {
      sizes.back() *= c.shape[d];
      for (size_t k = 0; k < slots.size(); ++k) st[k].back() = strides[k][d];
    } else {
      sizes.push_back(c.shape[d]);
      for (size_t k = 0; k < slots.size(); ++k) st[k].push_back(strides[k][d]);
    }
  }
  std::vector<int32_t> meta;
  for (const plexus_tensor* t : slots) {
    const uint64_t a = address_of(*t);
    meta.push_back(int32_t(uint32_t(a)));
    meta.push_back(int32_t(uint32_t(a >> 32)));
  }
  for (int64_t s : sizes) meta.push_back(int32_t(s));
  for (const auto& v : st)
    for (int64_t s : v) {
      if (s > INT32_MAX || s < INT32_MIN)
        sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "a compiled chain: stride {} does not fit 32 bits", s);
      meta.push_back(int32_t(s));
    }
  struct {
    uint64_t meta;
    uint32_t first, n;
    int32_t ndim;
  } push{0, uint32_t(first), uint32_t(n), int32_t(sizes.size())};
  const uint32_t groups = uint32_t(std::min<int64_t>((n - first + 255) / 256, 4096));
  c.dev->dispatch_pipeline(stream, c.general, &push, sizeof push, meta.data(), meta.size(), groups);
}

// Records the chain with the packed variant when every tensor allows it;
// returns how many leading elements it covered (0: none, nothing recorded).
int64_t run_packed(Compiled& c, void* stream, const plexus_tensor* inputs,
                   const plexus_tensor* outputs, int64_t n) {
  if (!c.packed || n < 4) return 0;
  auto dense = [&](const plexus_tensor& t) {
    return t.dtype == PLEXUS_DTYPE_F32 && t.storage && numel(t) == n && is_contiguous(t) &&
           block_offset(t) % 16 == 0;
  };
  std::vector<VkBufferView> views(c.num_inputs);
  std::vector<uint64_t> first(c.num_inputs);
  for (size_t j = 0; j < c.num_inputs; ++j)
    if (!dense(inputs[j]) || !texel_source(*c.dev, inputs[j], views[j], first[j])) return 0;
  for (size_t o = 0; o < c.num_outputs; ++o)
    if (!dense(outputs[o])) return 0;
  const int64_t chunk = int64_t(
      std::min<VkDeviceSize>(c.dev->info().max_storage_range, VkDeviceSize{64} << 20) / 16 * 4);
  const int64_t covered = n / 4 * 4;
  std::vector<VkDescriptorBufferInfo> out_info(c.num_outputs);
  std::vector<VkWriteDescriptorSet> w(c.num_outputs + c.num_inputs);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w[i].dstBinding = uint32_t(i);
    w[i].descriptorCount = 1;
    if (i < c.num_outputs) {
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &out_info[i];
    } else {
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      w[i].pTexelBufferView = &views[i - c.num_outputs];
    }
  }
  uint32_t push[Pipelines::kPushConstantBytes / 4] = {};
  for (int64_t e0 = 0; e0 < covered; e0 += chunk) {
    const int64_t m = std::min(chunk, covered - e0);
    push[0] = uint32_t(m);
    for (size_t j = 0; j < c.num_inputs; ++j) push[1 + j] = uint32_t(first[j] + uint64_t(e0 / 4));
    for (size_t o = 0; o < c.num_outputs; ++o) {
      const auto* a = static_cast<const Allocation*>(outputs[o].storage);
      out_info[o] = {a->buffer,
                     a->offset + VkDeviceSize(outputs[o].offset) * 4 + VkDeviceSize(e0) * 4,
                     VkDeviceSize(m) * 4};
    }
    // 1024 invocations x 4 quads of 4 elements per workgroup.
    const uint32_t groups = uint32_t((m / 4 + 4095) / 4096);
    c.dev->dispatch_pipeline(stream, c.packed, c.packed_layout, w.data(), uint32_t(w.size()), push,
                             uint32_t(4 * (1 + c.num_inputs)), groups);
  }
  return covered;
}

plexus_status supports(void*, const plexus_graph* g, uint8_t* supported) {
  return sdk::guard(g_context.host, [&] {
    for (int32_t i = 0; i < g->num_nodes; ++i)
      supported[i] = sdk::fused_unsupported(*g, i).empty() ? 1 : 0;
  });
}

plexus_status compile(void*, const plexus_graph* g, void** out) {
  return sdk::guard(g_context.host, [&] {
    const sdk::FusedProgram p = sdk::read_fused_graph(*g);
    auto c = std::make_unique<Compiled>();
    c->dev = &g_context.backend->device(g->device);
    c->shape = p.shape;
    c->num_inputs = size_t(g->num_inputs);
    c->num_outputs = size_t(g->num_outputs);
    Pipelines& pipes = c->dev->pipelines();
    const std::string dir = sdk::plugin_directory(g_context.host);
    const std::string name = fmt::format("fused chain of {} ops", g->num_nodes);
    c->general =
        pipes.build(compile_compute_glsl(dir, general_source(p, c->num_inputs), "general " + name),
                    pipes.layout(), name);
    const DeviceInfo& info = c->dev->info();
    bool packable = info.packed && c->num_inputs <= kMaxPackedInputs &&
                    c->num_inputs + c->num_outputs <= kMaxPackedBindings &&
                    c->num_inputs <= info.max_stage_texel_buffers &&
                    c->num_outputs <= info.max_stage_storage_buffers;
    for (const sdk::FusedRegister& r : p.regs) packable = packable && !r.is_bool;
    for (bool b : p.output_is_bool) packable = packable && !b;
    if (packable) {
      make_packed_layout(*c, c->num_outputs, c->num_inputs);
      c->packed =
          pipes.build(compile_compute_glsl(dir, packed_source(p, c->num_inputs), "packed " + name),
                      c->packed_layout, name);
    }
    *out = c.release();
  });
}

plexus_status run(void*, void* compiled, const plexus_tensor* inputs, const plexus_tensor* outputs,
                  void* stream) {
  return sdk::guard(g_context.host, [&] {
    auto& c = *static_cast<Compiled*>(compiled);
    int64_t n = 1;
    for (int64_t s : c.shape) n *= s;
    if (n == 0) return;
    if (n > INT32_MAX)
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "a compiled chain of {} elements; at most 2^31 - 1", n);
    const int64_t done = run_packed(c, stream, inputs, outputs, n);
    if (done == n) return;
    std::vector<const plexus_tensor*> slots;
    for (size_t j = 0; j < c.num_inputs; ++j) slots.push_back(&inputs[j]);
    for (size_t o = 0; o < c.num_outputs; ++o) slots.push_back(&outputs[o]);
    run_general(c, stream, slots, done, n);
  });
}

void release(void*, void* compiled) {
  delete static_cast<Compiled*>(compiled);
}

}  // namespace

const plexus_extension* graph_extension(const plexus_host_api* host, VulkanBackend& backend) {
#ifndef PLEXUS_VULKAN_GLSL
  return nullptr;  // built without libplexus-vulkan-glsl.so
#endif
  g_context = {host, &backend};
  static plexus_graph_extension ext = [] {
    plexus_graph_extension e{};
    e.header.struct_size = sizeof(plexus_graph_extension);
    e.header.type = PLEXUS_EXTENSION_GRAPH;
    e.supports = supports;
    e.compile = compile;
    e.run = run;
    e.release = release;
    return e;
  }();
  return &ext.header;
}

}  // namespace plexus::vulkan
