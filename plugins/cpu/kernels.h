// The cpu plugin's kernel families: each file registers its kernels with the
// host during init, through backend.register_kernel. One function per file,
// named for the file.
#pragma once

#include "backend.h"

namespace plexus::cpu {

void register_copy(CpuBackend& b);        // copy.cpp: copy_, fill_
void register_binary(CpuBackend& b);      // binary.cpp: add, sub, mul, div, pow, maximum, minimum
void register_unary(CpuBackend& b);       // unary.cpp: neg, abs, exp, ..., gelu, silu, clamp, relu;
                                          // threshold/sigmoid/tanh/silu/gelu_backward
void register_compare(CpuBackend& b);     // compare.cpp: eq..ge, where
void register_pointwise(CpuBackend& b);   // pointwise.cpp: lerp, addcmul, addcdiv, mse_loss_backward
void register_reduce(CpuBackend& b);      // reduce.cpp: sum, mean, amax, amin, argmax, argmin
void register_matmul(CpuBackend& b);      // matmul.cpp: mm, bmm, addmm (oneDNN)
void register_softmax(CpuBackend& b);     // softmax.cpp: softmax, log_softmax and their backward
void register_layer_norm(CpuBackend& b);  // layer_norm.cpp: layer_norm, layer_norm_backward
void register_pool(CpuBackend& b);        // pool.cpp: max_pool2d, max_pool2d_backward
void register_embedding(CpuBackend& b);   // embedding.cpp: embedding, embedding_backward, index_select
void register_conv(CpuBackend& b);        // conv.cpp: conv2d (oneDNN)
void register_shape(CpuBackend& b);       // shape.cpp: cat
void register_optim(CpuBackend& b);       // optim.cpp: adam_step_, sgd_step_ (and .list)
void register_random(CpuBackend& b);      // random.cpp: uniform_, normal_, bernoulli_
// out = beta * self + alpha * (a @ b) for float32 matrices, self (may be
// null) broadcast as addmm's: the matmul kernels' product, for a compiled
// chain that starts with one (matmul.cpp).
void fused_product(const plexus_tensor& a, const plexus_tensor& b, const plexus_tensor& out,
                   const plexus_tensor* self, double beta, double alpha);
// The graph compiler of ABI 1.1 (graph.cpp), chained to the backend's table.
const plexus_extension* graph_extension(const plexus_host_api* host);

}  // namespace plexus::cpu
