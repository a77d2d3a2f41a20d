// Binary arithmetic: add, sub, mul, div (true, 'trunc', 'floor'), pow with a
// tensor or scalar exponent, maximum, minimum. The host has broadcast both
// operands to out's shape and converted them to call.dtype; float16 and
// bfloat16 compute in float and round once on store; integers wrap.
#include <cmath>

#include "elementwise.h"
#include "kernels.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::cpu {
namespace {

// self + alpha * other (add.out) or self - alpha * other (sub.out); bool adds
// as logical or. Args: self, other, alpha, out.
template <bool Subtract>
void add_sub_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<Subtract ? sdk::kNumericDTypes : sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0), other = input<T>(args, 1);
    auto out = output<T>(args, 3);
    sdk::Scalar alpha_arg = args.scalar(2);
    if constexpr (std::is_same_v<T, bool>) {
      static_assert(!Subtract, "sub is not defined for bool");
      bool alpha = alpha_arg.to_bool();
      map2([alpha](bool a, bool b) { return a || (alpha && b); }, out, self, other);
    } else if constexpr (std::is_integral_v<T>) {
      T alpha = scalar_to<T>(alpha_arg);
      map2(
          [alpha](T a, T b) {
            T scaled = sdk::wrap_mul(alpha, b);
            return Subtract ? sdk::wrap_sub(a, scaled) : sdk::wrap_add(a, scaled);
          },
          out, self, other);
    } else {  // alpha * b is exact for alpha = 1, so one loop serves every alpha
      C alpha = scalar_to<C>(alpha_arg);
      map2([alpha](C a, C b) { return Subtract ? a - alpha * b : a + alpha * b; }, out, self,
           other);
    }
  });
}

// mul.out(self, other, *, out); bool multiplies as logical and.
void mul_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0), other = input<T>(args, 1);
    auto out = output<T>(args, 2);
    if constexpr (std::is_same_v<T, bool>)
      map2([](bool a, bool b) { return a && b; }, out, self, other);
    else if constexpr (std::is_integral_v<T>)
      map2([](T a, T b) { return sdk::wrap_mul(a, b); }, out, self, other);
    else
      map2([](C a, C b) { return a * b; }, out, self, other);
  });
}

// PyTorch's floor division of floats: the floor of the exact quotient, from
// fmod, so that e.g. 1 // 0.1 is 9 like Python's.
template <typename C>
C floor_divide(C a, C b) {
  if (b == 0) return a / b;
  C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= C(1);
  if (div == 0) return std::copysign(C(0), a / b);
  C floored = std::floor(div);
  if (div - floored > C(0.5)) floored += C(1);
  return floored;
}

// Integer quotient rounded toward zero; x / -1 wraps instead of trapping.
template <typename T>
T trunc_divide_int(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return sdk::wrap_neg(a);
  return static_cast<T>(a / b);
}

// Integer quotient rounded toward negative infinity.
template <typename T>
T floor_divide_int(T a, T b) {
  T q = trunc_divide_int(a, b);
  if constexpr (std::is_signed_v<T>)
    if (b != -1 && (a < 0) != (b < 0) && static_cast<T>(a % b) != 0) q = static_cast<T>(q - 1);
  return q;
}

// Division of floating operands: true, truncated or floored.
template <typename T>
void divide_floating(const sdk::TensorView<T>& out, const sdk::TensorView<const T>& self,
                     const sdk::TensorView<const T>& other, sdk::Rounding rounding) {
  using C = compute_t<T>;
  if (rounding == sdk::Rounding::True)
    map2([](C a, C b) { return a / b; }, out, self, other);
  else if (rounding == sdk::Rounding::Trunc)
    map2([](C a, C b) { return std::trunc(a / b); }, out, self, other);
  else
    map2([](C a, C b) { return floor_divide(a, b); }, out, self, other);
}

// Division of integer operands: 'trunc' or 'floor' (true division computes
// in float32, so it never reaches here).
template <typename T>
void divide_integral(const sdk::TensorView<T>& out, const sdk::TensorView<const T>& self,
                     const sdk::TensorView<const T>& other, sdk::Rounding rounding) {
  sdk::check_division(sdk::dtype_of<T>(), rounding);
  sdk::check_no_zero_divisor(other);  // before the parallel loop, which must not throw
  if (rounding == sdk::Rounding::Trunc)
    map2([](T a, T b) { return trunc_divide_int(a, b); }, out, self, other);
  else
    map2([](T a, T b) { return floor_divide_int(a, b); }, out, self, other);
}

// div.out(self, other, *, out) and div.out_mode(self, other, *, rounding_mode, out).
template <bool WithMode>
void div_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::Rounding rounding = sdk::Rounding::True;
  if constexpr (WithMode) rounding = sdk::rounding_mode(args, 2);
  visit<WithMode ? sdk::kNumericDTypes : sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto self = input<T>(args, 0), other = input<T>(args, 1);
    auto out = output<T>(args, WithMode ? 3 : 2);
    if constexpr (std::is_integral_v<T>)
      divide_integral(out, self, other, rounding);
    else
      divide_floating(out, self, other, rounding);
  });
}

// base ** exponent for integers by squaring, wrapping; a negative exponent
// gives 1 / base truncated (1, -1 or 0), as PyTorch's tensor exponents do.
template <typename T>
T integer_pow(T base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>)
      if (base == -1) return (exponent % 2 != 0) ? T(-1) : T(1);
    return 0;
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = sdk::wrap_mul(result, base);
    exponent >>= 1;
    base = sdk::wrap_mul(base, base);
  }
  return result;
}

// pow.Tensor_Tensor_out(self, exponent, *, out)
void pow_tensor_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0), exponent = input<T>(args, 1);
    auto out = output<T>(args, 2);
    if constexpr (std::is_integral_v<T>)
      map2([](T a, T b) { return integer_pow(a, static_cast<int64_t>(b)); }, out, self, exponent);
    else
      map2([](C a, C b) { return std::pow(a, b); }, out, self, exponent);
  });
}

// Floating x ** e with PyTorch's special cases for common exponents (square,
// cube, square root, reciprocals), which are faster and exact where pow is not.
template <typename T>
void pow_floating_scalar(const sdk::TensorView<T>& out, const sdk::TensorView<const T>& self,
                         double e) {
  using C = compute_t<T>;
  if (e == 2)
    map([](C x) { return x * x; }, out, self);
  else if (e == 3)
    map([](C x) { return x * x * x; }, out, self);
  else if (e == 0.5)
    map([](C x) { return std::sqrt(x); }, out, self);
  else if (e == -0.5)
    map([](C x) { return C(1) / std::sqrt(x); }, out, self);
  else if (e == -1)
    map([](C x) { return C(1) / x; }, out, self);
  else if (e == -2)
    map([](C x) { return C(1) / (x * x); }, out, self);
  else
    map([ce = static_cast<C>(e)](C x) { return std::pow(x, ce); }, out, self);
}

// pow.Tensor_Scalar_out(self, exponent, *, out); the host has refused negative
// integer exponents of integer bases.
void pow_scalar_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::Scalar e = args.scalar(1);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto self = input<T>(args, 0);
    auto out = output<T>(args, 2);
    if constexpr (std::is_integral_v<T>) {
      int64_t n = e.to_int();
      map([n](T x) { return integer_pow(x, n); }, out, self);
    } else {
      pow_floating_scalar(out, self, e.to_double());
    }
  });
}

// maximum.out / minimum.out: NaN wins; bool is or / and.
template <bool Max>
void extremum_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0), other = input<T>(args, 1);
    auto out = output<T>(args, 2);
    if constexpr (std::is_same_v<T, bool>) {
      map2([](bool a, bool b) { return Max ? (a || b) : (a && b); }, out, self, other);
    } else if constexpr (std::is_integral_v<T>) {
      map2([](T a, T b) { return Max ? (a < b ? b : a) : (b < a ? b : a); }, out, self, other);
    } else {
      map2(
          [](C a, C b) {
            if (a != a || b != b) return std::numeric_limits<C>::quiet_NaN();
            return Max ? (a < b ? b : a) : (b < a ? b : a);
          },
          out, self, other);
    }
  });
}

}  // namespace

void register_binary(CpuBackend& b) {
  b.register_kernel<&add_sub_out<false>>("add.out", sdk::kAllDTypes);
  b.register_kernel<&add_sub_out<true>>("sub.out", sdk::kNumericDTypes);
  b.register_kernel<&mul_out>("mul.out", sdk::kAllDTypes);
  b.register_kernel<&div_out<false>>("div.out", sdk::kFloatingDTypes);
  b.register_kernel<&div_out<true>>("div.out_mode", sdk::kNumericDTypes);
  b.register_kernel<&pow_tensor_out>("pow.Tensor_Tensor_out", sdk::kNumericDTypes);
  b.register_kernel<&pow_scalar_out>("pow.Tensor_Scalar_out", sdk::kNumericDTypes);
  b.register_kernel<&extremum_out<true>>("maximum.out", sdk::kAllDTypes);
  b.register_kernel<&extremum_out<false>>("minimum.out", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
