// The standard op catalog: every op's schemas, meta function, composite and
// dtypes. One file per family of ops; define_catalog() defines them all.
#pragma once

#include "plexus/dispatcher.h"
#include "plexus/meta.h"

namespace plexus {

void define_catalog(Dispatcher& d);

// One per file in this folder.
void define_copy_ops(Dispatcher& d);         // copy_, fill_, to
void define_binary_ops(Dispatcher& d);       // add, sub, mul, div, pow, maximum, minimum
void define_unary_ops(Dispatcher& d);        // neg, abs, exp, ..., gelu, silu, clamp
void define_compare_ops(Dispatcher& d);      // eq, ne, lt, le, gt, ge, where
void define_reduce_ops(Dispatcher& d);       // sum, mean, amax, amin, argmax, argmin
void define_matmul_ops(Dispatcher& d);       // mm, bmm, addmm, matmul, linear
void define_softmax_ops(Dispatcher& d);      // softmax, log_softmax
void define_layer_norm_ops(Dispatcher& d);   // layer_norm
void define_conv_ops(Dispatcher& d);         // conv2d
void define_pool_ops(Dispatcher& d);         // max_pool2d
void define_embedding_ops(Dispatcher& d);    // embedding
void define_loss_ops(Dispatcher& d);         // mse_loss (composite)
void define_pointwise_ops(Dispatcher& d);    // lerp, addcmul, addcdiv
void define_shape_ops(Dispatcher& d);        // cat
void define_optim_ops(Dispatcher& d);        // adam_step_, sgd_step_ (and .list)
void define_random_ops(Dispatcher& d);       // uniform_, normal_, bernoulli_

// The dtype a composite adds up in: float32 for float16 and bfloat16 (they
// compute in float32 and round once, the project's rule), else t itself.
inline DType accumulate_dtype(DType t) {
  return t == DType::F16 || t == DType::BF16 ? DType::F32 : t;
}

// Dtype sets the catalog uses.
inline constexpr DTypeSet kAllTypes = DTypeSet::all();
inline constexpr DTypeSet kNumericTypes = DTypeSet::integral() | DTypeSet::floating();
inline constexpr DTypeSet kFloatTypes = DTypeSet::floating();
inline constexpr DTypeSet kSignedTypes = DTypeSet{DType::I8, DType::I16, DType::I32, DType::I64} |
                                         DTypeSet::floating();

}  // namespace plexus
