// Element types in kernels: float16 and bfloat16 as 16-bit storage that
// converts to and from float and double (plexus/sdk/half_bits.hpp), the
// compute type of each, and dispatch over dtype sets (sdk/dtype.hpp's).
#pragma once

#include <cstdint>

#include "gpu.h"
#include "plexus/plugin.h"
#include "plexus/sdk/half_bits.hpp"

namespace plexus::gpu {

// 2-byte floats as kernels hold them; the conversions are the SDK's
// (plexus/sdk/half_bits.hpp), doubles rounded once.
struct Half {
  uint16_t bits;
  Half() = default;
  __host__ __device__ Half(float f) : bits(sdk::float_to_half_bits(f)) {}
  __host__ __device__ Half(double d) : bits(sdk::double_to_half_bits(d)) {}
  __host__ __device__ operator float() const { return sdk::half_bits_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  __host__ __device__ BFloat16(float f) : bits(sdk::float_to_bfloat16_bits(f)) {}
  __host__ __device__ BFloat16(double d) : bits(sdk::double_to_bfloat16_bits(d)) {}
  __host__ __device__ operator float() const { return sdk::bfloat16_bits_to_float(bits); }
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
