// The vulkan plugin's kernel families: each file registers its kernels during
// init with backend.register_kernel<&fn>(op, dtypes), fn recording its work on
// call.stream of the call's device (mirrors plugins/cpu/kernels.h).
#pragma once

#include "backend.h"

namespace plexus::vulkan {

void register_copy(VulkanBackend& b);     // copy.cpp: copy_, fill_
void register_binary(VulkanBackend& b);   // binary.cpp: add, sub, mul, div, pow, maximum, minimum
void register_unary(VulkanBackend& b);    // unary.cpp: neg, abs, exp, ..., gelu, silu, clamp, relu
void register_compare(VulkanBackend& b);  // compare.cpp: eq..ge, where
void register_pointwise(VulkanBackend& b);   // pointwise.cpp: lerp, addcmul, addcdiv
void register_matmul(VulkanBackend& b);      // matmul.cpp: mm, bmm, addmm
void register_reduce(VulkanBackend& b);      // reduce.cpp: sum, mean, amax, amin, argmax, argmin
void register_softmax(VulkanBackend& b);     // softmax.cpp: softmax, log_softmax
void register_layer_norm(VulkanBackend& b);  // layer_norm.cpp: layer_norm
void register_pool(VulkanBackend& b);        // pool.cpp: max_pool2d
void register_embedding(VulkanBackend& b);   // embedding.cpp: embedding
void register_conv(VulkanBackend& b);        // conv.cpp: conv2d
void register_shape(VulkanBackend& b);       // shape.cpp: cat
void register_optim(VulkanBackend& b);       // optim.cpp: adam_step_, sgd_step_ (and .list)
void register_random(VulkanBackend& b);      // random.cpp: uniform_, normal_, bernoulli_

// The graph compiler (graph.cpp; plugin ABI 1.1), or null in a build
// without its GLSL compiler.
const plexus_extension* graph_extension(const plexus_host_api* host, VulkanBackend& backend);

}  // namespace plexus::vulkan
