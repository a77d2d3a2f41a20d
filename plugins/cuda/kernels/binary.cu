// Binary arithmetic in float32: add, sub (with alpha), mul, div (true, 'trunc',
// 'floor'), pow with a tensor or scalar exponent, maximum, minimum (NaN wins).
// The host has broadcast both operands to out's shape.
#include <cmath>
#include <string_view>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);

struct AddOp {
  float alpha;
  __device__ float operator()(float a, float b) const { return a + alpha * b; }
};
struct MulOp {
  __device__ float operator()(float a, float b) const { return a * b; }
};
struct DivOp {
  __device__ float operator()(float a, float b) const { return a / b; }
};
struct TruncDivOp {
  __device__ float operator()(float a, float b) const { return truncf(a / b); }
};
// Python's floor division: the floor of the exact quotient, from fmod.
struct FloorDivOp {
  __device__ float operator()(float a, float b) const {
    if (b == 0.0f) return a / b;
    float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0.0f && (b < 0.0f) != (mod < 0.0f)) div -= 1.0f;
    if (div == 0.0f) return copysignf(0.0f, a / b);
    float floored = floorf(div);
    if (div - floored > 0.5f) floored += 1.0f;
    return floored;
  }
};
struct PowOp {
  __device__ float operator()(float a, float b) const { return powf(a, b); }
};
// x ** e for a scalar e, with the exact special cases PyTorch takes.
struct PowScalarOp {
  float e;
  __device__ float operator()(float x) const {
    if (e == 2.0f) return x * x;
    if (e == 3.0f) return x * x * x;
    if (e == 0.5f) return sqrtf(x);
    if (e == -0.5f) return 1.0f / sqrtf(x);
    if (e == -1.0f) return 1.0f / x;
    if (e == -2.0f) return 1.0f / (x * x);
    return powf(x, e);
  }
};
template <bool Max>
struct ExtremumOp {
  __device__ float operator()(float a, float b) const {
    if (a != a || b != b) return NAN;
    return Max ? (a < b ? b : a) : (b < a ? b : a);
  }
};

template <typename Op>
void binary(const plexus_kernel_call& call, int64_t out_arg, Op op) {
  launch_map<float, float, 3>(
      call, {tensor_arg(call, out_arg), tensor_arg(call, 0), tensor_arg(call, 1)}, op);
}

// add.out(self, other, alpha, out) / sub.out: self -/+ alpha * other.
template <bool Subtract>
void add_sub_out(const plexus_kernel_call& call) {
  float alpha = sdk::Args(call).scalar(2).to<float>();
  binary(call, 3, AddOp{Subtract ? -alpha : alpha});
}

void mul_out(const plexus_kernel_call& call) {
  binary(call, 2, MulOp{});
}

// div.out(self, other, out) and div.out_mode(self, other, rounding_mode, out).
template <bool WithMode>
void div_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  std::optional<std::string_view> mode;
  if constexpr (WithMode) mode = args.optional_string(2);
  int64_t out = WithMode ? 3 : 2;
  if (!mode)
    binary(call, out, DivOp{});
  else if (*mode == "trunc")
    binary(call, out, TruncDivOp{});
  else if (*mode == "floor")
    binary(call, out, FloorDivOp{});
  else
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              std::string(call.op) + ": rounding_mode must be 'trunc' or 'floor', got '" +
                  std::string(*mode) + "'");
}

void pow_tensor_out(const plexus_kernel_call& call) {
  binary(call, 2, PowOp{});
}

void pow_scalar_out(const plexus_kernel_call& call) {
  float e = sdk::Args(call).scalar(1).to<float>();
  launch_map<float, float, 2>(call, {tensor_arg(call, 2), tensor_arg(call, 0)}, PowScalarOp{e});
}

template <bool Max>
void extremum_out(const plexus_kernel_call& call) {
  binary(call, 2, ExtremumOp<Max>{});
}

}  // namespace

void register_binary(const Registrar& r) {
  r.kernel<&add_sub_out<false>>("add.out", kF32);
  r.kernel<&add_sub_out<true>>("sub.out", kF32);
  r.kernel<&mul_out>("mul.out", kF32);
  r.kernel<&div_out<false>>("div.out", kF32);
  r.kernel<&div_out<true>>("div.out_mode", kF32);
  r.kernel<&pow_tensor_out>("pow.Tensor_Tensor_out", kF32);
  r.kernel<&pow_scalar_out>("pow.Tensor_Scalar_out", kF32);
  r.kernel<&extremum_out<true>>("maximum.out", kF32);
  r.kernel<&extremum_out<false>>("minimum.out", kF32);
}

}  // namespace plexus::gpu
