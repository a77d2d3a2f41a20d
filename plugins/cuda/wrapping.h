// Integer arithmetic that wraps modulo 2^bits, as PyTorch's integers do:
// computed in an unsigned type at least as wide as unsigned int, so that
// overflow is defined (small types would otherwise promote to signed int).
#pragma once

#include <type_traits>

#include "gpu.h"

namespace plexus::gpu {

template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
__host__ __device__ __forceinline__ T wrap_add(T a, T b) {
  return T(wrap_t<T>(a) + wrap_t<T>(b));
}
template <typename T>
__host__ __device__ __forceinline__ T wrap_sub(T a, T b) {
  return T(wrap_t<T>(a) - wrap_t<T>(b));
}
template <typename T>
__host__ __device__ __forceinline__ T wrap_mul(T a, T b) {
  return T(wrap_t<T>(a) * wrap_t<T>(b));
}
template <typename T>
__host__ __device__ __forceinline__ T wrap_neg(T a) {
  return T(wrap_t<T>(0) - wrap_t<T>(a));
}

// -x for any compute type: integers wrap.
template <typename C>
__host__ __device__ __forceinline__ C negate(C x) {
  if constexpr (std::is_integral_v<C>)
    return wrap_neg(x);
  else
    return -x;
}

}  // namespace plexus::gpu
