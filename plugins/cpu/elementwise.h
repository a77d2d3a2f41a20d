// What the elementwise kernel files (copy, binary, unary, compare, pointwise)
// share: fast float16/bfloat16 element types, dtype dispatch limited to an
// op's dtypes, typed views of a call's tensors, conversion exactly as the host
// converts, and map2(), the binary loop with a scalar fast path. Integer
// arithmetic wraps like PyTorch's through plexus/sdk/wrapping.hpp.
#pragma once

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "parallel.h"
#include "plexus/sdk/wrapping.hpp"

namespace plexus::cpu {

// float16 and bfloat16 as the loops hold them: float16 converts with F16C
// where the build has it, which gives the bits plexus/sdk/half_bits.hpp gives
// (tests/plugins/cpu/test_half.cpp); everything else is half_bits.hpp's.
// Integers go through float, as the host's do.
struct F16 {
  uint16_t bits;
  F16() = default;
  F16(float f) : bits(from_float(f)) {}
  F16(double d) : bits(sdk::double_to_half_bits(d)) {}
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  F16(I v) : F16(static_cast<float>(v)) {}
  operator float() const {
#if defined(__F16C__)
    return _cvtsh_ss(bits);
#else
    return sdk::half_bits_to_float(bits);
#endif
  }

 private:
  static uint16_t from_float(float f) {
#if defined(__F16C__)
    return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
    return sdk::float_to_half_bits(f);
#endif
  }
};

struct BF16 {
  uint16_t bits;
  BF16() = default;
  BF16(float f) : bits(sdk::float_to_bfloat16_bits(f)) {}
  BF16(double d) : bits(sdk::double_to_bfloat16_bits(d)) {}
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  BF16(I v) : BF16(static_cast<float>(v)) {}
  operator float() const { return sdk::bfloat16_bits_to_float(bits); }
};

// The type the loops use for elements of T: F16 and BF16 for sdk::Half and
// sdk::BFloat16, T itself otherwise.
template <typename T>
using elem_t = std::conditional_t<std::is_same_v<T, sdk::Half>, F16,
                                  std::conditional_t<std::is_same_v<T, sdk::BFloat16>, BF16, T>>;
template <typename T>
inline constexpr bool is_fast_reduced_v = std::is_same_v<T, F16> || std::is_same_v<T, BF16>;
// The type to compute in for elements of T (a dtype's type or an elem_t):
// float for the 2-byte floats, T otherwise.
template <typename T>
using compute_t = std::conditional_t<is_fast_reduced_v<T> || sdk::is_reduced_float_v<T>, float, T>;

// Calls f(sdk::DTypeTag<T>{}) for dtype d, instantiating f only for the types
// in Mask; any other dtype throws UNSUPPORTED naming op.
template <uint32_t Mask, typename F>
void visit(plexus_dtype d, const char* op, F&& f) {
  sdk::visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (((Mask >> sdk::dtype_of<T>()) & 1u) != 0) {
      f(tag);
    } else {
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: the cpu has no kernel for {}", op,
                sdk::dtype_name(d));
    }
  });
}

// Tensor argument i of a call, of dtype T, as elements of elem_t<T>:
// read-only input, written output. Throws when its dtype is not T's.
template <typename T>
sdk::TensorView<elem_t<T>> view_of(const sdk::Args& args, int64_t i) {
  const plexus_tensor& t = args.tensor(i);
  if (t.dtype != sdk::dtype_of<T>())
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "argument {} is {}, expected {}", i,
              sdk::dtype_name(t.dtype), sdk::dtype_name(sdk::dtype_of<T>()));
  return sdk::TensorView<elem_t<T>>(static_cast<elem_t<T>*>(t.storage) + t.offset, t.ndim, t.sizes,
                                    t.strides);
}
template <typename T>
sdk::TensorView<const elem_t<T>> input(const sdk::Args& args, int64_t i) {
  sdk::TensorView<elem_t<T>> v = view_of<T>(args, i);
  return sdk::TensorView<const elem_t<T>>(v.data(), v.ndim(), v.sizes(), v.strides());
}
template <typename T>
sdk::TensorView<elem_t<T>> output(const sdk::Args& args, int64_t i) {
  return view_of<T>(args, i);
}

// Converts a value as the host's copy_ does: sdk::convert, except that
// integers and bool reach float16/bfloat16 through float, as the host's do.
// Takes F16 and BF16 too.
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (is_fast_reduced_v<From>)
    return convert_value<To>(static_cast<float>(v));
  else if constexpr (is_fast_reduced_v<To>)
    return To(v);
  else if constexpr (sdk::is_reduced_float_v<To> &&
                     (std::is_integral_v<From> || std::is_same_v<From, float>))
    return To(static_cast<float>(v));
  else
    return sdk::convert<To>(v);
}

// A Scalar argument as T, converted as the host converts it.
template <typename T>
T scalar_to(const sdk::Scalar& s) {
  if (s.is_floating()) return convert_value<T>(s.to_double());
  if (s.is_bool()) return convert_value<T>(s.to_bool());
  return convert_value<T>(s.to_int());
}

// True when every element of v is one value in memory (sizes 1 or strides 0).
template <typename T>
bool is_single_value(const sdk::TensorView<T>& v) {
  for (int32_t d = 0; d < v.ndim(); ++d)
    if (v.size(d) != 1 && v.stride(d) != 0) return false;
  return true;
}

// out[i] = f(a[i], b[i]) for views of one shape, in parallel. An operand that
// is one value broadcast (a Python scalar, a 0-d tensor) is read once and
// bound into f, so the loop over the other operand stays contiguous.
template <typename F, typename Out, typename A, typename B>
void map2(F f, const sdk::TensorView<Out>& out, const sdk::TensorView<A>& a,
          const sdk::TensorView<B>& b) {
  if (out.numel() == 0) return;
  bool a1 = is_single_value(a), b1 = is_single_value(b);
  if (a1 && b1) {
    auto v = f(a.data()[0], b.data()[0]);
    map([v] { return v; }, out);
  } else if (b1) {
    std::remove_const_t<B> bv = b.data()[0];
    map([f, bv](const auto& x) { return f(x, bv); }, out, a);
  } else if (a1) {
    std::remove_const_t<A> av = a.data()[0];
    map([f, av](const auto& y) { return f(av, y); }, out, b);
  } else {
    map(f, out, a, b);
  }
}

}  // namespace plexus::cpu
