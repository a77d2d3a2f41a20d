// IEEE binary16 (float16) and bfloat16 storage types with correctly rounded
// conversions (round to nearest, ties to even; NaN stays NaN; overflow to Inf):
// the SDK's plexus/sdk/half_bits.hpp, Note [16-bit float rounding and NaN].
#pragma once

#include <bit>
#include <cstdint>

namespace plexus {

// Bit-level conversions (core/src/half.cpp calls the SDK's, which plugins use too).
uint16_t float_to_half_bits(float f);
uint16_t double_to_half_bits(double d);  // rounds once, directly from double
float half_bits_to_float(uint16_t h);
uint16_t float_to_bfloat16_bits(float f);
uint16_t double_to_bfloat16_bits(double d);  // rounds once, directly from double
inline float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// float16 value type: 2 bytes, converts to and from float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(float_to_half_bits(f)) {}
  Half(double d) : bits(double_to_half_bits(d)) {}
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  operator float() const { return half_bits_to_float(bits); }
};

// bfloat16 value type: 2 bytes, converts to and from float.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(float_to_bfloat16_bits(f)) {}
  BFloat16(double d) : bits(double_to_bfloat16_bits(d)) {}
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return bfloat16_bits_to_float(bits); }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

}  // namespace plexus
