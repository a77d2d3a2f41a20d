// visit_dtype: calls a generic lambda with the C++ type of a dtype; the one
// dtype switch host code in the core uses.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "plexus/dtype.h"
#include "plexus/error.h"
#include "plexus/half.h"

namespace plexus {

// f(T{}) with T the host type of `t` (bool, uint8_t, ..., Half, BFloat16, float, double).
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::U8: return f(uint8_t{});
    case DType::I8: return f(int8_t{});
    case DType::I16: return f(int16_t{});
    case DType::I32: return f(int32_t{});
    case DType::I64: return f(int64_t{});
    case DType::F16: return f(Half{});
    case DType::BF16: return f(BFloat16{});
    case DType::F32: return f(float{});
    case DType::F64: return f(double{});
  }
  fail(ErrorCode::Internal, "visit_dtype: invalid dtype value {}", static_cast<int>(t));
}

// Converts a value between host types: float -> int truncates (NaN -> 0, out of
// range saturates), nonzero -> true; Half and BFloat16 go through float.
template <typename To, typename From>
inline To convert_value(From v) {
  if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Defined for every input: NaN gives 0, out-of-range values saturate.
    if (v != v) return To{0};
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, double>) return To(v);
    else return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace plexus
