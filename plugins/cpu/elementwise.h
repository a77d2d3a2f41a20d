// What the elementwise kernel files (copy, binary, unary, compare, pointwise)
// share: dtype dispatch limited to an op's dtypes, typed views of a call's
// tensors, conversion exactly as the host converts, integer arithmetic that
// wraps like PyTorch's, and map2(), the binary loop with a scalar fast path.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "parallel.h"

namespace plexus::cpu {

// The catalog's dtype sets, as register_kernel masks.
inline constexpr uint32_t kAllTypes = sdk::kAllDTypes;
inline constexpr uint32_t kNumericTypes = sdk::kNumericDTypes;
inline constexpr uint32_t kFloatTypes = sdk::kFloatingDTypes;

// Calls f(sdk::DTypeTag<T>{}) for dtype d, instantiating f only for the types
// in Mask; any other dtype throws UNSUPPORTED naming op.
template <uint32_t Mask, typename F>
void visit(plexus_dtype d, const char* op, F&& f) {
  sdk::visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (((Mask >> sdk::dtype_of<T>()) & 1u) != 0) {
      f(tag);
    } else {
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED,
                std::string(op) + ": the cpu has no kernel for " + sdk::dtype_name(d));
    }
  });
}

// Tensor argument i of a call as elements of T: read-only input, written output.
template <typename T>
sdk::TensorView<const T> input(const sdk::Args& args, int64_t i) {
  return sdk::TensorView<const T>(args.tensor(i));
}
template <typename T>
sdk::TensorView<T> output(const sdk::Args& args, int64_t i) {
  return sdk::TensorView<T>(args.tensor(i));
}

// Converts a value as the host's copy_ does: sdk::convert, except that
// integers and bool reach float16/bfloat16 through float, as the host's do.
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (sdk::is_reduced_float_v<To> &&
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

// Integer + - * and negation that wrap modulo 2^bits, as PyTorch's integers
// do, computed unsigned so that overflow is defined (and UBSan-clean).
template <typename T>
using wrap_type_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <typename T>
T wrapping_add(T a, T b) {
  return static_cast<T>(static_cast<wrap_type_t<T>>(a) + static_cast<wrap_type_t<T>>(b));
}
template <typename T>
T wrapping_sub(T a, T b) {
  return static_cast<T>(static_cast<wrap_type_t<T>>(a) - static_cast<wrap_type_t<T>>(b));
}
template <typename T>
T wrapping_mul(T a, T b) {
  return static_cast<T>(static_cast<wrap_type_t<T>>(a) * static_cast<wrap_type_t<T>>(b));
}
template <typename T>
T wrapping_neg(T a) {
  return static_cast<T>(wrap_type_t<T>{0} - static_cast<wrap_type_t<T>>(a));
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
