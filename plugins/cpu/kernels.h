// The cpu plugin's kernel families: each file registers its kernels with the
// host during init. One function per file, named for the file.
#pragma once

#include "plexus/plugin.hpp"

namespace plexus::cpu {

// The host table and the cpu's device-type slot, for registering kernels.
struct Registrar {
  const plexus_host_api* host;
  int32_t slot;
};

void register_copy(const Registrar& r);    // copy.cpp: copy_, fill_
void register_binary(const Registrar& r);  // binary.cpp: add, sub, mul, div, pow, maximum, minimum
void register_unary(const Registrar& r);   // unary.cpp: neg, abs, exp, ..., gelu, silu, clamp, relu
void register_compare(const Registrar& r);     // compare.cpp: eq..ge, where
void register_pointwise(const Registrar& r);   // pointwise.cpp: lerp, addcmul, addcdiv
void register_reduce(const Registrar& r);      // reduce.cpp: sum, mean, amax, amin, argmax, argmin
void register_matmul(const Registrar& r);      // matmul.cpp: mm, bmm, addmm (oneDNN)
void register_softmax(const Registrar& r);     // softmax.cpp: softmax, log_softmax
void register_layer_norm(const Registrar& r);  // layer_norm.cpp: layer_norm
void register_pool(const Registrar& r);        // pool.cpp: max_pool2d
void register_embedding(const Registrar& r);   // embedding.cpp: embedding
void register_conv(const Registrar& r);        // conv.cpp: conv2d (oneDNN)
void register_shape(const Registrar& r);       // shape.cpp: cat

}  // namespace plexus::cpu
