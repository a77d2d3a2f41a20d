// The one conversion between float/double and the 2-byte floats (IEEE binary16
// and bfloat16), on bit patterns, for host and device code alike: constexpr,
// C++17, nothing from the standard library but <cstdint>. core's plexus/half.h,
// sdk::Half, the cuda/hip/simt kernels and the cpu plugin's scalar paths all
// call these; the cpu plugin's F16C paths and the vulkan shaders' bfloat16
// conversion must give the same bits (tests/sdk/test_half_bits.cpp,
// tests/plugins/cpu/test_half.cpp).
//
// Note [16-bit float rounding and NaN]: narrowing rounds once to nearest, ties to
// even, past the largest finite value to infinity, below the smallest subnormal
// to a zero of the same sign. A NaN stays a NaN of its sign, made quiet (top
// mantissa bit set), with as many of its top payload bits as the target holds;
// float16 widening quiets a NaN the same way (as F16C does). bfloat16 widens by
// appending 16 zero bits, NaNs included: it is a float's upper half.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PLEXUS_SDK_HOST_DEVICE __host__ __device__
#else
#define PLEXUS_SDK_HOST_DEVICE
#endif

namespace plexus::sdk {
namespace half_detail {

template <typename To, typename From>
PLEXUS_SDK_HOST_DEVICE constexpr To bit_cast(From v) {
  return __builtin_bit_cast(To, v);
}

// m / 2^shift rounded to nearest, ties to even (0 < shift < bits of U).
template <typename U>
PLEXUS_SDK_HOST_DEVICE constexpr U shift_round_even(U m, int shift) {
  const U kept = m >> shift;
  const U rest = m & ((U(1) << shift) - 1);
  const U half = U(1) << (shift - 1);
  return kept + U(rest > half || (rest == half && (kept & 1)));
}

// The magnitude bits `abs` of a value with FromMant fraction and FromExp exponent
// bits, as a format with ToMant and ToExp (no more of either), with sign bit
// `sign` (0 or 0x8000). U holds From's bits.
template <typename U, int FromMant, int FromExp, int ToMant, int ToExp>
PLEXUS_SDK_HOST_DEVICE constexpr uint16_t narrow(U abs, uint16_t sign) {
  constexpr int kDrop = FromMant - ToMant;
  constexpr int kFromBias = (1 << (FromExp - 1)) - 1, kToBias = (1 << (ToExp - 1)) - 1;
  constexpr U kFromExpMask = (U(1) << FromExp) - 1;
  constexpr uint16_t kInf = uint16_t(((1u << ToExp) - 1) << ToMant);
  const U exp = abs >> FromMant;
  const U frac = abs & ((U(1) << FromMant) - 1);
  if (exp == kFromExpMask) {
    if (frac == 0) return uint16_t(sign | kInf);
    return uint16_t(sign | kInf | (1u << (ToMant - 1)) | uint16_t(frac >> kDrop));  // quiet NaN
  }
  // Rebias; values in To's normal range keep a positive exponent field.
  const int to_exp = int(exp) - kFromBias + kToBias;
  if (to_exp >= 1) {
    // Rounding may carry into the exponent, and past the largest finite value
    // into the infinity pattern, as IEEE rounding requires.
    const U r = shift_round_even<U>((U(to_exp) << FromMant) | frac, kDrop);
    return uint16_t(sign | (r >= kInf ? kInf : uint16_t(r)));
  }
  // Subnormal (or zero) in To: the significand in units of To's smallest
  // subnormal; a carry out of the subnormals gives the smallest normal.
  if (exp == 0) {  // From's own subnormals and zero
    constexpr int kSubShift = kDrop + kFromBias - kToBias;
    if constexpr (kSubShift > FromMant) {
      return sign;  // all below half of To's smallest subnormal
    } else {
      return uint16_t(sign | uint16_t(shift_round_even<U>(frac, kSubShift)));
    }
  }
  const int shift = kDrop + 1 - to_exp;
  if (shift > FromMant + 1) return sign;  // below half of To's smallest subnormal
  return uint16_t(sign | uint16_t(shift_round_even<U>(frac | (U(1) << FromMant), shift)));
}

}  // namespace half_detail

// float to float16 bits.
PLEXUS_SDK_HOST_DEVICE constexpr uint16_t float_to_half_bits(float f) {
  const uint32_t u = half_detail::bit_cast<uint32_t>(f);
  return half_detail::narrow<uint32_t, 23, 8, 10, 5>(u & 0x7fffffffu,
                                                     uint16_t((u >> 16) & 0x8000u));
}

// double to float16 bits, rounded once (not through float).
PLEXUS_SDK_HOST_DEVICE constexpr uint16_t double_to_half_bits(double d) {
  const uint64_t u = half_detail::bit_cast<uint64_t>(d);
  return half_detail::narrow<uint64_t, 52, 11, 10, 5>(u & ~(uint64_t(1) << 63),
                                                      uint16_t((u >> 48) & 0x8000u));
}

// float16 bits to float, exactly.
PLEXUS_SDK_HOST_DEVICE constexpr float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
  if (exp == 0x1f)  // infinity, or NaN made quiet with its payload kept
    return half_detail::bit_cast<float>(sign | 0x7f800000u | (frac << 13) |
                                        (frac ? 0x400000u : 0u));
  if (exp != 0) return half_detail::bit_cast<float>(sign | ((exp + 112) << 23) | (frac << 13));
  const float v = float(frac) * 0x1p-24f;  // zero or subnormal: exact, a normal float
  return sign ? -v : v;
}

// float to bfloat16 bits: the upper half of f rounded (same exponent range, so
// plain integer rounding of the bits is IEEE rounding, overflow included).
PLEXUS_SDK_HOST_DEVICE constexpr uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t u = half_detail::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);  // quiet NaN
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// double to bfloat16 bits, rounded once (not through float).
PLEXUS_SDK_HOST_DEVICE constexpr uint16_t double_to_bfloat16_bits(double d) {
  const uint64_t u = half_detail::bit_cast<uint64_t>(d);
  return half_detail::narrow<uint64_t, 52, 11, 7, 8>(u & ~(uint64_t(1) << 63),
                                                     uint16_t((u >> 48) & 0x8000u));
}

// bfloat16 bits to float, exactly: the upper half of the float.
PLEXUS_SDK_HOST_DEVICE constexpr float bfloat16_bits_to_float(uint16_t b) {
  return half_detail::bit_cast<float>(uint32_t(b) << 16);
}

}  // namespace plexus::sdk
