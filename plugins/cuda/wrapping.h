// Integer arithmetic that wraps modulo 2^bits (plexus/sdk/wrapping.hpp), and
// negation for any compute type.
#pragma once

#include <type_traits>

#include "gpu.h"
#include "plexus/sdk/wrapping.hpp"

namespace plexus::gpu {

using sdk::wrap_add;
using sdk::wrap_mul;
using sdk::wrap_neg;
using sdk::wrap_sub;

// -x for any compute type: integers wrap.
template <typename C>
__host__ __device__ __forceinline__ C negate(C x) {
  if constexpr (std::is_integral_v<C>)
    return wrap_neg(x);
  else
    return -x;
}

}  // namespace plexus::gpu
