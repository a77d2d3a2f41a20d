// Element types in kernels: float16 and bfloat16 as 16-bit storage that
// converts to and from float (rounding to nearest even, NaN kept), the
// compute type of each, and the dtype sets the families register.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpu.h"
#include "plexus/plugin.h"

namespace plexus::gpu {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);
constexpr uint32_t kFloatTypes = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16) |
                                 PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BF16) | kF32 |
                                 PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);
constexpr uint32_t kAllTypes = (1u << PLEXUS_NUM_DTYPES) - 1;
constexpr uint32_t kNumericTypes = kAllTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BOOL);

__host__ __device__ __forceinline__ float float_of_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
__host__ __device__ __forceinline__ uint32_t bits_of_float(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

// IEEE binary16 to float, exactly (subnormals, infinities, NaN).
__host__ __device__ __forceinline__ float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return float_of_bits(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float v = float(man) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return float_of_bits(sign | ((exp + 112) << 23) | (man << 13));
}

// float to binary16, rounding to nearest even; NaN stays a quiet NaN.
__host__ __device__ __forceinline__ uint16_t float_to_half(float f) {
  uint32_t u = bits_of_float(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // 65520 and up round to infinity
  if (a < 0x38800000u) {                                  // below 2^-14: a subnormal half
    if (a < 0x33000000u) return uint16_t(sign);           // at most 2^-25: rounds to zero
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126 - e;
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return uint16_t(sign | r);
  }
  uint32_t r = a - (112u << 23);
  return uint16_t(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
}

// float to bfloat16 (its upper half), rounding to nearest even.
__host__ __device__ __forceinline__ uint16_t float_to_bfloat16(float f) {
  uint32_t u = bits_of_float(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t(((u >> 16) & 0x8000u) | 0x7fc0u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// d as a float rounded to odd: rounding that to a narrower format then
// rounds d only once (used for float64 to float16/bfloat16).
__host__ __device__ __forceinline__ float float_round_odd(double d) {
  float f = float(d);
  if (double(f) == d || f != f) return f;
  if ((f < 0 ? -double(f) : double(f)) > (d < 0 ? -d : d)) f = nextafterf(f, 0.0f);
  return float_of_bits(bits_of_float(f) | 1u);
}

struct Half {
  uint16_t bits;
  Half() = default;
  __host__ __device__ Half(float f) : bits(float_to_half(f)) {}
  __host__ __device__ Half(double d) : bits(float_to_half(float_round_odd(d))) {}
  __host__ __device__ operator float() const { return half_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  __host__ __device__ BFloat16(float f) : bits(float_to_bfloat16(f)) {}
  __host__ __device__ BFloat16(double d) : bits(float_to_bfloat16(float_round_odd(d))) {}
  __host__ __device__ operator float() const { return float_of_bits(uint32_t(bits) << 16); }
};

// The type a kernel computes T in: float for the 16-bit floats.
template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<Half> {
  using type = float;
};
template <>
struct Compute<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename Compute<T>::type;

// Calls f(T{}) with T the storage type of a floating dtype.
template <typename F>
void visit_float(plexus_dtype d, F f) {
  switch (d) {
    case PLEXUS_DTYPE_F16:
      return f(Half{});
    case PLEXUS_DTYPE_BF16:
      return f(BFloat16{});
    case PLEXUS_DTYPE_F64:
      return f(double{});
    default:
      return f(float{});
  }
}

// Calls f(T{}) with T the storage type of a numeric (not bool) dtype.
template <typename F>
void visit_numeric(plexus_dtype d, F f) {
  switch (d) {
    case PLEXUS_DTYPE_U8:
      return f(uint8_t{});
    case PLEXUS_DTYPE_I8:
      return f(int8_t{});
    case PLEXUS_DTYPE_I16:
      return f(int16_t{});
    case PLEXUS_DTYPE_I32:
      return f(int32_t{});
    case PLEXUS_DTYPE_I64:
      return f(int64_t{});
    default:
      return visit_float(d, f);
  }
}

// Calls f(T{}) with T the storage type of any dtype; bool is its byte (0 or 1).
template <typename F>
void visit_all(plexus_dtype d, F f) {
  switch (d) {
    case PLEXUS_DTYPE_BOOL:
    case PLEXUS_DTYPE_U8:
      return f(uint8_t{});
    case PLEXUS_DTYPE_I8:
      return f(int8_t{});
    case PLEXUS_DTYPE_I16:
      return f(int16_t{});
    case PLEXUS_DTYPE_I32:
      return f(int32_t{});
    case PLEXUS_DTYPE_I64:
      return f(int64_t{});
    default:
      return visit_float(d, f);
  }
}

}  // namespace plexus::gpu
