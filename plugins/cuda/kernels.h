// The kernel families of the gpu plugins (cuda, hip, simt): one file each,
// mirroring plugins/cpu's names. register_kernels (kernels.cu) calls them all;
// the plugin entry calls register_kernels. What a family uses of the runtime
// comes with this header: stream_of (stream.h), check and check_launch
// (errors.h), Workspace (memory.h), device_name (device.h).
#pragma once

#include "context.h"
#include "device.h"
#include "errors.h"
#include "memory.h"
#include "stream.h"

namespace plexus::gpu {

void register_kernels(const Registrar& r);

void register_copy(const Registrar& r);     // copy.cu: copy_, fill_
void register_binary(const Registrar& r);   // binary.cu: add, sub, mul, div, pow, maximum, minimum
void register_unary(const Registrar& r);    // unary.cu: neg, abs, exp, ..., gelu, silu, clamp, relu
void register_compare(const Registrar& r);  // compare.cu: eq..ge, where
void register_pointwise(const Registrar& r);   // pointwise.cu: lerp, addcmul, addcdiv
void register_reduce(const Registrar& r);      // reduce.cu: sum, mean, amax, amin, argmax, argmin
void register_matmul(const Registrar& r);      // matmul.cu: mm, bmm, addmm (own tiled GEMM)
void register_softmax(const Registrar& r);     // softmax.cu: softmax, log_softmax
void register_layer_norm(const Registrar& r);  // layer_norm.cu: layer_norm
void register_pool(const Registrar& r);        // pool.cu: max_pool2d
void register_embedding(const Registrar& r);   // embedding.cu: embedding
void register_conv(const Registrar& r);        // conv.cu: conv2d (direct)
void register_shape(const Registrar& r);       // shape.cu: cat

}  // namespace plexus::gpu
