// Binary arithmetic of floating tensors (float16 and bfloat16 compute in
// float, rounding once on store): add, sub (with alpha), mul, div (true,
// 'trunc', 'floor'), pow with a tensor or scalar exponent, maximum, minimum
// (NaN wins). The host has broadcast both operands to out's shape.
#include <cmath>
#include <string_view>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

template <typename C>
struct AddOp {
  C alpha;
  __device__ C operator()(C a, C b) const { return a + alpha * b; }
};
template <typename C>
struct MulOp {
  __device__ C operator()(C a, C b) const { return a * b; }
};
template <typename C>
struct DivOp {
  __device__ C operator()(C a, C b) const { return a / b; }
};
template <typename C>
struct TruncDivOp {
  __device__ C operator()(C a, C b) const { return trunc(a / b); }
};
// Python's floor division: the floor of the exact quotient, from fmod.
template <typename C>
struct FloorDivOp {
  __device__ C operator()(C a, C b) const {
    if (b == C(0)) return a / b;
    C mod = fmod(a, b);
    C div = (a - mod) / b;
    if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
    if (div == C(0)) return copysign(C(0), a / b);
    C floored = floor(div);
    if (div - floored > C(0.5)) floored += C(1);
    return floored;
  }
};
template <typename C>
struct PowOp {
  __device__ C operator()(C a, C b) const { return pow(a, b); }
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
    if (a != a || b != b) return C(NAN);
    return Max ? (a < b ? b : a) : (b < a ? b : a);
  }
};

// out = op(self, other) for T, with op built from the compute type by make.
template <template <typename> class Op, typename Make>
void binary(const plexus_kernel_call& call, int64_t out_arg, Make make) {
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_map<T, T, 3>(call, {tensor_arg(call, out_arg), tensor_arg(call, 0), tensor_arg(call, 1)},
                        make(Op<compute_t<T>>{}));
  });
}
constexpr auto as_is = [](auto op) { return op; };

// add.out(self, other, alpha, out) / sub.out: self -/+ alpha * other.
template <bool Subtract>
void add_sub_out(const plexus_kernel_call& call) {
  sdk::Scalar alpha = sdk::Args(call).scalar(2);
  binary<AddOp>(call, 3, [&](auto op) {
    using C = decltype(op.alpha);
    op.alpha = Subtract ? -alpha.to<C>() : alpha.to<C>();
    return op;
  });
}

void mul_out(const plexus_kernel_call& call) {
  binary<MulOp>(call, 2, as_is);
}

// div.out(self, other, out) and div.out_mode(self, other, rounding_mode, out).
template <bool WithMode>
void div_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  std::optional<std::string_view> mode;
  if constexpr (WithMode) mode = args.optional_string(2);
  int64_t out = WithMode ? 3 : 2;
  if (!mode)
    binary<DivOp>(call, out, as_is);
  else if (*mode == "trunc")
    binary<TruncDivOp>(call, out, as_is);
  else if (*mode == "floor")
    binary<FloorDivOp>(call, out, as_is);
  else
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              std::string(call.op) + ": rounding_mode must be 'trunc' or 'floor', got '" +
                  std::string(*mode) + "'");
}

void pow_tensor_out(const plexus_kernel_call& call) {
  binary<PowOp>(call, 2, as_is);
}

void pow_scalar_out(const plexus_kernel_call& call) {
  sdk::Scalar e = sdk::Args(call).scalar(1);
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    launch_map<T, T, 2>(call, {tensor_arg(call, 2), tensor_arg(call, 0)},
                        PowScalarOp<C>{C(e.to_double())});
  });
}

template <typename C>
using MaximumOp = ExtremumOp<C, true>;
template <typename C>
using MinimumOp = ExtremumOp<C, false>;

template <bool Max>
void extremum_out(const plexus_kernel_call& call) {
  if constexpr (Max)
    binary<MaximumOp>(call, 2, as_is);
  else
    binary<MinimumOp>(call, 2, as_is);
}

}  // namespace

void register_binary(const Registrar& r) {
  r.kernel<&add_sub_out<false>>("add.out", kFloatTypes);
  r.kernel<&add_sub_out<true>>("sub.out", kFloatTypes);
  r.kernel<&mul_out>("mul.out", kFloatTypes);
  r.kernel<&div_out<false>>("div.out", kFloatTypes);
  r.kernel<&div_out<true>>("div.out_mode", kFloatTypes);
  r.kernel<&pow_tensor_out>("pow.Tensor_Tensor_out", kFloatTypes);
  r.kernel<&pow_scalar_out>("pow.Tensor_Scalar_out", kFloatTypes);
  r.kernel<&extremum_out<true>>("maximum.out", kFloatTypes);
  r.kernel<&extremum_out<false>>("minimum.out", kFloatTypes);
}

}  // namespace plexus::gpu
