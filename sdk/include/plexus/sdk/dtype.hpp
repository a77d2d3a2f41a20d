// Element types on the C++ side: which type stores each plexus_dtype, dispatch
// from a run-time dtype to a template, dtype sets, and value conversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "plexus/plugin.h"
#include "plexus/sdk/error.hpp"
#include "plexus/sdk/half.hpp"

namespace plexus::sdk {

// Names a C++ element type for visit_dtype's callback: decltype(tag)::type.
template <typename T>
struct DTypeTag {
  using type = T;
};

// The dtype stored as T (bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
// Half, BFloat16, float, double).
template <typename T>
constexpr plexus_dtype dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return PLEXUS_DTYPE_BOOL;
  else if constexpr (std::is_same_v<U, uint8_t>)
    return PLEXUS_DTYPE_U8;
  else if constexpr (std::is_same_v<U, int8_t>)
    return PLEXUS_DTYPE_I8;
  else if constexpr (std::is_same_v<U, int16_t>)
    return PLEXUS_DTYPE_I16;
  else if constexpr (std::is_same_v<U, int32_t>)
    return PLEXUS_DTYPE_I32;
  else if constexpr (std::is_same_v<U, int64_t>)
    return PLEXUS_DTYPE_I64;
  else if constexpr (std::is_same_v<U, Half>)
    return PLEXUS_DTYPE_F16;
  else if constexpr (std::is_same_v<U, BFloat16>)
    return PLEXUS_DTYPE_BF16;
  else if constexpr (std::is_same_v<U, float>)
    return PLEXUS_DTYPE_F32;
  else if constexpr (std::is_same_v<U, double>)
    return PLEXUS_DTYPE_F64;
  else
    static_assert(sizeof(U) == 0, "dtype_of<T>: T is not a plexus element type");
}

// The canonical name of a dtype ("float32"), as the host prints it.
inline const char* dtype_name(plexus_dtype d) noexcept {
  static const char* const names[PLEXUS_NUM_DTYPES] = {"bool",    "uint8",  "int8",    "int16",
                                                       "int32",   "int64",  "float16", "bfloat16",
                                                       "float32", "float64"};
  return d >= 0 && d < PLEXUS_NUM_DTYPES ? names[d] : "<invalid dtype>";
}

// Bytes per element; 0 for an invalid dtype.
inline size_t dtype_size(plexus_dtype d) noexcept {
  static const unsigned char sizes[PLEXUS_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return d >= 0 && d < PLEXUS_NUM_DTYPES ? sizes[d] : 0;
}

// Dtype sets for register_kernel's dtype_mask.
inline constexpr uint32_t kAllDTypes = (1u << PLEXUS_NUM_DTYPES) - 1;
inline constexpr uint32_t kFloatingDTypes =
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BF16) |
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);
inline constexpr uint32_t kIntegralDTypes =
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_U8) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_I8) |
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_I16) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_I32) |
    PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_I64);  // bool excluded
inline constexpr uint32_t kNumericDTypes = kFloatingDTypes | kIntegralDTypes;

// Calls f(DTypeTag<T>{}) with T the C++ type of d and returns its result.
// Throws Error(UNSUPPORTED) for a value that is no dtype.
template <typename F>
decltype(auto) visit_dtype(plexus_dtype d, F&& f) {
  switch (d) {
    case PLEXUS_DTYPE_BOOL:
      return f(DTypeTag<bool>{});
    case PLEXUS_DTYPE_U8:
      return f(DTypeTag<uint8_t>{});
    case PLEXUS_DTYPE_I8:
      return f(DTypeTag<int8_t>{});
    case PLEXUS_DTYPE_I16:
      return f(DTypeTag<int16_t>{});
    case PLEXUS_DTYPE_I32:
      return f(DTypeTag<int32_t>{});
    case PLEXUS_DTYPE_I64:
      return f(DTypeTag<int64_t>{});
    case PLEXUS_DTYPE_F16:
      return f(DTypeTag<Half>{});
    case PLEXUS_DTYPE_BF16:
      return f(DTypeTag<BFloat16>{});
    case PLEXUS_DTYPE_F32:
      return f(DTypeTag<float>{});
    case PLEXUS_DTYPE_F64:
      return f(DTypeTag<double>{});
    default:
      fail(PLEXUS_ERROR_UNSUPPORTED, "invalid dtype value " + std::to_string(d));
  }
}

// True for Half and BFloat16, which compute in float.
template <typename T>
inline constexpr bool is_reduced_float_v =
    std::is_same_v<std::remove_cv_t<T>, Half> || std::is_same_v<std::remove_cv_t<T>, BFloat16>;

// The type to compute in for elements of T: float for Half and BFloat16, else T.
template <typename T>
using compute_type_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// Converts between element types as the host does: to bool is `!= 0`;
// floating to integral truncates, NaN gives 0 and out-of-range values
// saturate; to Half/BFloat16 rounds to nearest even; integral to integral wraps.
template <typename To, typename From>
To convert(From v) {
  if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (v != v) return To{0};
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace plexus::sdk
