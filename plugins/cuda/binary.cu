// Binary arithmetic (float16 and bfloat16 compute in float, rounding once on
// store): add, sub (with alpha), mul, maximum, minimum (NaN wins), pow with
// a tensor or scalar exponent for every numeric dtype, integers wrapping, and
// add, mul, maximum, minimum of bool as or, and, or, and; div (true, 'trunc',
// 'floor') for the floating dtypes and div 'trunc' and 'floor' for the
// integers too (a zero divisor fails the call). The host has broadcast both
// operands to out's shape.
#include <cmath>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "plexus/sdk/op_args.hpp"
#include "wrapping.h"

namespace plexus::gpu {
namespace {

template <typename C>
struct AddOp {
  C alpha;
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrap_add(a, wrap_mul(alpha, b));
    else
      return a + alpha * b;
  }
};
template <typename C>
struct MulOp {
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrap_mul(a, b);
    else
      return a * b;
  }
};
// Bool (as its byte, 0 or 1): add is a || (alpha && b), mul is and, maximum
// is or, minimum is and.
struct BoolAddOp {
  bool alpha;
  __device__ uint8_t operator()(uint8_t a, uint8_t b) const { return uint8_t(a || (alpha && b)); }
};
template <bool Or>
struct BoolLogicOp {
  __device__ uint8_t operator()(uint8_t a, uint8_t b) const {
    return uint8_t(Or ? (a || b) : (a && b));
  }
};
template <typename C>
struct DivOp {
  __device__ C operator()(C a, C b) const { return a / b; }
};
// Integer quotient rounded toward zero; x / -1 wraps instead of trapping.
template <typename T>
__device__ __forceinline__ T trunc_divide_int(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return wrap_neg(a);
  return T(a / b);
}
template <typename C>
struct TruncDivOp {
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return trunc_divide_int(a, b);
    else
      return trunc(a / b);
  }
};
// Integer quotient rounded toward negative infinity.
template <typename T>
__device__ __forceinline__ T floor_divide_int(T a, T b) {
  T q = trunc_divide_int(a, b);
  if constexpr (std::is_signed_v<T>)
    if (b != T(-1) && (a < T(0)) != (b < T(0)) && T(a % b) != T(0)) q = T(q - 1);
  return q;
}
// Python's floor division of floats: the floor of the exact quotient, from fmod.
template <typename C>
__device__ C floor_divide_float(C a, C b) {
  if (b == C(0)) return a / b;
  C mod = fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
  if (div == C(0)) return copysign(C(0), a / b);
  C floored = floor(div);
  if (div - floored > C(0.5)) floored += C(1);
  return floored;
}
template <typename C>
struct FloorDivOp {
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return floor_divide_int(a, b);
    else
      return floor_divide_float(a, b);
  }
};
// base ** exponent for integers by squaring, wrapping; a negative exponent
// gives 1 / base truncated (1, -1 or 0), as the cpu and PyTorch do.
template <typename T>
__device__ T integer_pow(T base, int64_t exponent) {
  if (exponent < 0) {
    if (base == T(1)) return T(1);
    if constexpr (std::is_signed_v<T>)
      if (base == T(-1)) return exponent % 2 != 0 ? T(-1) : T(1);
    return T(0);
  }
  T result = T(1);
  for (; exponent != 0; exponent >>= 1) {
    if (exponent & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
  }
  return result;
}

template <typename C>
struct PowOp {
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return integer_pow(a, int64_t(b));
    else
      return pow(a, b);
  }
};
template <typename C>
struct IntPowScalarOp {
  int64_t e;
  __device__ C operator()(C x) const { return integer_pow(x, e); }
};
// x ** e for a scalar e, with the exact special cases PyTorch takes.
template <typename C>
struct PowScalarOp {
  C e;
  __device__ C operator()(C x) const {
    if (e == C(2)) return x * x;
    if (e == C(3)) return x * x * x;
    if (e == C(0.5)) return sqrt(x);
    if (e == C(-0.5)) return C(1) / sqrt(x);
    if (e == C(-1)) return C(1) / x;
    if (e == C(-2)) return C(1) / (x * x);
    return pow(x, e);
  }
};
template <typename C, bool Max>
struct ExtremumOp {
  __device__ C operator()(C a, C b) const {
    if constexpr (!std::is_integral_v<C>)
      if (a != a || b != b) return C(NAN);
    return Max ? (a < b ? b : a) : (b < a ? b : a);
  }
};

// out = op(self, other) for T, with op built from the compute type by make;
// T ranges over the numeric dtypes when Integers, else the floating ones.
template <template <typename> class Op, bool Integers = false, typename Make>
void binary(const plexus_kernel_call& call, int64_t out_arg, Make make) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    launch_map<T, T, 3>(call, {tensor_arg(call, out_arg), tensor_arg(call, 0), tensor_arg(call, 1)},
                        make(Op<compute_t<T>>{}));
  };
  if constexpr (Integers)
    visit_numeric(call.dtype, run);
  else
    visit_float(call.dtype, run);
}

// out = op(self, other) of bool operands, as their bytes.
template <typename Op>
void bool_binary(const plexus_kernel_call& call, int64_t out_arg, Op op) {
  launch_map<uint8_t, uint8_t, 3>(
      call, {tensor_arg(call, out_arg), tensor_arg(call, 0), tensor_arg(call, 1)}, op);
}
constexpr auto as_is = [](auto op) { return op; };

// add.out(self, other, alpha, out) / sub.out: self -/+ alpha * other.
template <bool Subtract>
void add_sub_out(const plexus_kernel_call& call) {
  sdk::Scalar alpha = sdk::Args(call).scalar(2);
  if (!Subtract && call.dtype == PLEXUS_DTYPE_BOOL)
    return bool_binary(call, 3, BoolAddOp{alpha.to_bool()});
  binary<AddOp, true>(call, 3, [&](auto op) {
    using C = decltype(op.alpha);
    op.alpha = Subtract ? negate(alpha.to<C>()) : alpha.to<C>();  // a - s b = a + (-s) b, mod 2^n
    return op;
  });
}

void mul_out(const plexus_kernel_call& call) {
  if (call.dtype == PLEXUS_DTYPE_BOOL) return bool_binary(call, 2, BoolLogicOp<false>{});
  binary<MulOp, true>(call, 2, as_is);
}

// Sets *found when an element of the divisor is zero.
template <typename T>
__global__ void zero_divisor_kernel(Layout<1> l, unsigned* found) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[1];
    offsets_of(l, i, off);
    if (static_cast<const T*>(l.data[0])[off[0]] == T(0)) atomicExch(found, 1u);
  }
}

// Fails the call, before out is written, when an integer divisor is zero;
// waits for the stream to know (one synchronization per integer division).
void check_no_zero_divisor(const plexus_kernel_call& call) {
  Layout<1> l = make_layout<1>(call, {tensor_arg(call, 1)});
  if (l.numel == 0) return;
  gpuStream_t s = stream_of(call);
  Workspace flag(call, sizeof(unsigned));
  check(gpuMemsetAsync(flag.get(), 0, sizeof(unsigned), s), call, "gpuMemsetAsync");
  visit_numeric(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      auto* kernel = &zero_divisor_kernel<T>;
      PLEXUS_LAUNCH(kernel, blocks_for(l.numel), kBlockThreads, 0, s, l, flag.as<unsigned>());
    }
  });
  check_launch(call, "zero_divisor_kernel");
  unsigned found = 0;
  check(gpuMemcpyAsync(&found, flag.get(), sizeof found, gpuMemcpyDeviceToHost, s), call,
        "gpuMemcpyAsync");
  check(gpuStreamSynchronize(s), call, "gpuStreamSynchronize");
  if (found) sdk::fail_division_by_zero();
}

// div.out(self, other, out) and div.out_mode(self, other, rounding_mode, out);
// integers only round ('trunc', 'floor'): the host computes their true
// division in float32.
template <bool WithMode>
void div_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::Rounding rounding = sdk::Rounding::True;
  if constexpr (WithMode) rounding = sdk::rounding_mode(args, 2);
  int64_t out = WithMode ? 3 : 2;
  sdk::check_division(call.dtype, rounding);
  if (sdk::kIntegralDTypes & PLEXUS_DTYPE_BIT(call.dtype)) check_no_zero_divisor(call);
  if (rounding == sdk::Rounding::True)
    binary<DivOp>(call, out, as_is);
  else if (rounding == sdk::Rounding::Trunc)
    binary<TruncDivOp, true>(call, out, as_is);
  else
    binary<FloorDivOp, true>(call, out, as_is);
}

void pow_tensor_out(const plexus_kernel_call& call) {
  binary<PowOp, true>(call, 2, as_is);
}

// pow.Tensor_Scalar_out(self, exponent, *, out); the host has refused
// negative integer exponents of integer bases.
void pow_scalar_out(const plexus_kernel_call& call) {
  sdk::Scalar e = sdk::Args(call).scalar(1);
  visit_numeric(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const plexus_tensor* const tensors[2] = {tensor_arg(call, 2), tensor_arg(call, 0)};
    if constexpr (std::is_integral_v<T>)
      launch_map<T, T, 2>(call, tensors, IntPowScalarOp<T>{e.to_int()});
    else
      launch_map<T, T, 2>(call, tensors, PowScalarOp<C>{C(e.to_double())});
  });
}

template <typename C>
using MaximumOp = ExtremumOp<C, true>;
template <typename C>
using MinimumOp = ExtremumOp<C, false>;

template <bool Max>
void extremum_out(const plexus_kernel_call& call) {
  if (call.dtype == PLEXUS_DTYPE_BOOL) return bool_binary(call, 2, BoolLogicOp<Max>{});
  if constexpr (Max)
    binary<MaximumOp, true>(call, 2, as_is);
  else
    binary<MinimumOp, true>(call, 2, as_is);
}

}  // namespace

void register_binary(GpuBackend& b) {
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

}  // namespace plexus::gpu
