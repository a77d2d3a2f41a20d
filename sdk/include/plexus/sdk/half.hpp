// Half (IEEE binary16) and BFloat16: 2-byte element types that convert to and
// from float and double as half_bits.hpp does (round to nearest even, its NaN
// rule), and to float exactly. Arithmetic goes through float.
#pragma once

#include <cstdint>
#include <type_traits>

#include "plexus/sdk/half_bits.hpp"

namespace plexus::sdk {
namespace detail {

// Any arithmetic value to float16 (E = 5) or bfloat16 (E = 8) bits: float and
// integers through float (as plexus and PyTorch convert them), the rest
// through double, rounded once.
template <int E, typename U>
constexpr uint16_t narrow_any(U v) {
  constexpr bool kViaFloat = std::is_same_v<U, float> || std::is_integral_v<U>;
  if constexpr (E == 5)
    return kViaFloat ? float_to_half_bits(static_cast<float>(v))
                     : double_to_half_bits(static_cast<double>(v));
  else
    return kViaFloat ? float_to_bfloat16_bits(static_cast<float>(v))
                     : double_to_bfloat16_bits(static_cast<double>(v));
}

}  // namespace detail

// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits.
struct Half {
  uint16_t bits = 0;

  Half() = default;
  // From any arithmetic value, rounded to nearest even (integers via float).
  template <typename U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  Half(U v) : bits(detail::narrow_any<5>(v)) {}
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  // Exact.
  operator float() const { return half_bits_to_float(bits); }
};

// bfloat16: the upper half of a float (1 sign, 8 exponent, 7 mantissa bits).
struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  // From any arithmetic value, rounded to nearest even (integers via float).
  template <typename U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  BFloat16(U v) : bits(detail::narrow_any<8>(v)) {}
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  // Exact.
  operator float() const { return bfloat16_bits_to_float(bits); }
};

static_assert(sizeof(Half) == 2 && std::is_trivially_copyable_v<Half>);
static_assert(sizeof(BFloat16) == 2 && std::is_trivially_copyable_v<BFloat16>);

}  // namespace plexus::sdk
