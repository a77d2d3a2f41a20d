// Integer + - * and negation that wrap modulo 2^bits, as PyTorch's integers
// do: computed in an unsigned type at least as wide as unsigned int, so that
// overflow is defined (and UBSan-clean; narrower types would otherwise
// promote to signed int). For host and device code alike: the cpu plugin
// and the cuda/hip/simt kernels use these.
#pragma once

#include <type_traits>

#include "plexus/sdk/half_bits.hpp"  // PLEXUS_SDK_HOST_DEVICE

namespace plexus::sdk {

template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
PLEXUS_SDK_HOST_DEVICE constexpr T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
}
template <typename T>
PLEXUS_SDK_HOST_DEVICE constexpr T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b));
}
template <typename T>
PLEXUS_SDK_HOST_DEVICE constexpr T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}
template <typename T>
PLEXUS_SDK_HOST_DEVICE constexpr T wrap_neg(T a) {
  return static_cast<T>(wrap_t<T>{0} - static_cast<wrap_t<T>>(a));
}

}  // namespace plexus::sdk
