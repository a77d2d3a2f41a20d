// The kernel families of the gpu plugins (cuda, hip, simt): one file each,
// named as in every plugin; the plugin entry (plugin.cpp) calls each one's
// register function, which registers its kernels with
// backend.register_kernel<&fn>(op, dtypes). What a family uses of the runtime
// comes with this header: stream_of (stream.h), check and check_launch
// (errors.h), Workspace (memory.h), device_name (device.h).
#pragma once

#include "backend.h"
#include "device.h"
#include "errors.h"
#include "memory.h"
#include "stream.h"

namespace plexus::gpu {

void register_copy(GpuBackend& b);        // copy.cu: copy_, fill_
void register_binary(GpuBackend& b);      // binary.cu: add, sub, mul, div, pow, maximum, minimum
void register_unary(GpuBackend& b);       // unary.cu: neg, abs, exp, ..., gelu, silu, clamp, relu
void register_compare(GpuBackend& b);     // compare.cu: eq..ge, where
void register_pointwise(GpuBackend& b);   // pointwise.cu: lerp, addcmul, addcdiv
void register_reduce(GpuBackend& b);      // reduce.cu: sum, mean, amax, amin, argmax, argmin
void register_matmul(GpuBackend& b);      // matmul.cu: mm, bmm, addmm (own tiled GEMM)
void register_softmax(GpuBackend& b);     // softmax.cu: softmax, log_softmax
void register_layer_norm(GpuBackend& b);  // layer_norm.cu: layer_norm
void register_pool(GpuBackend& b);        // pool.cu: max_pool2d
void register_embedding(GpuBackend& b);   // embedding.cu: embedding
void register_conv(GpuBackend& b);        // conv.cu: conv2d (direct)
void register_shape(GpuBackend& b);       // shape.cu: cat
void register_optim(GpuBackend& b);       // optim.cu: adam_step_, sgd_step_ (and .list)
void register_random(GpuBackend& b);      // random.cu: uniform_, normal_, bernoulli_

}  // namespace plexus::gpu
