// Binary arithmetic: add, sub, mul, div (true, 'trunc', 'floor'), pow with a
// tensor or scalar exponent, maximum, minimum: shaders/binary.comp. The host
// has broadcast both operands to out's shape and converted them to call.dtype.
#include <algorithm>
#include <climits>
#include <vector>

#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::vulkan {
namespace {

// Operation codes of shaders/binary.comp.
enum BinaryOp { kAdd, kSub, kMul, kDiv, kDivTrunc, kDivFloor, kPow, kMax, kMin };

// Without GLSL's transcendental builtins for double.
constexpr uint32_t kPowTypes = sdk::kNumericDTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);

void run(VulkanBackend& b, const plexus_kernel_call& call, int op, const plexus_tensor& out,
         const plexus_tensor& self, const plexus_tensor& other, uint64_t alpha = 0) {
  ElementwisePush push;
  push.s0 = alpha;
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("binary", call.dtype).c_str(), {op}, {&out, &self, &other}, push);
}

// add.out(self, other, *, alpha, out) / sub.out
template <int Op>
void add_sub_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(b, call, Op, args.tensor(3), args.tensor(0), args.tensor(1),
      scalar_bits(args.scalar(2), call.dtype));
}

// mul.out, maximum.out, minimum.out, pow.Tensor_Tensor_out, div.out: (self, other, *, out)
template <int Op>
void plain_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(b, call, Op, args.tensor(2), args.tensor(0), args.tensor(1));
}

// Throws the integer-division-by-zero error when an element of `other`
// (an integer tensor on the device) is 0. It reads `other` back, which
// waits for the stream's earlier work: a shader cannot report the error,
// and the call must fail before out is written.
void check_no_zero_divisor(Device& dev, void* stream, const plexus_tensor& other) {
  std::vector<uint8_t> host;
  const plexus_tensor view = read_back(dev, stream, other, host);
  sdk::visit_dtype(other.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    sdk::check_no_zero_divisor(sdk::TensorView<const T>(view, host.data()));
  });
}

// div.out_mode(self, other, *, rounding_mode, out): floating dtypes but
// float64 (see register_binary), and the integer dtypes, whose divisors are
// checked for zeros first.
void div_mode_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const sdk::Rounding rounding = sdk::rounding_mode(args, 2);
  sdk::check_division(call.dtype, rounding);
  const int op = rounding == sdk::Rounding::Trunc   ? kDivTrunc
                 : rounding == sdk::Rounding::Floor ? kDivFloor
                                                    : kDiv;
  if (sdk::kIntegralDTypes & PLEXUS_DTYPE_BIT(call.dtype))
    check_no_zero_divisor(b.device(call.device_index), call.stream, args.tensor(1));
  run(b, call, op, args.tensor(3), args.tensor(0), args.tensor(1));
}

// pow.Tensor_Scalar_out(self, exponent, *, out): the exponent rides in the
// push constants (integers: saturated to 32 bits, which changes no result).
void pow_scalar_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::Scalar e = args.scalar(1);
  const plexus_tensor &self = args.tensor(0), &out = args.tensor(2);
  ElementwisePush push;
  if (call.dtype == PLEXUS_DTYPE_I64) {
    push.s1 = uint64_t(e.to_int());
  } else if (sdk::kIntegralDTypes & PLEXUS_DTYPE_BIT(call.dtype)) {
    int64_t n = std::clamp<int64_t>(e.to_int(), INT32_MIN, INT32_MAX);
    push.s1 = uint64_t(n);
  } else {
    push.s1 = scalar_bits(e, call.dtype);
  }
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("binary", call.dtype).c_str(), {kPow, 1}, {&out, &self}, push);
}

}  // namespace

void register_binary(VulkanBackend& b) {
  b.register_kernel<&add_sub_out<kAdd>>("add.out", sdk::kAllDTypes);
  b.register_kernel<&add_sub_out<kSub>>("sub.out", sdk::kNumericDTypes);
  b.register_kernel<&plain_out<kMul>>("mul.out", sdk::kAllDTypes);
  b.register_kernel<&plain_out<kDiv>>("div.out", sdk::kFloatingDTypes);
  // Not float64: floor division of subnormal doubles (2^-1022 // 2^-1074) comes
  // out wrong on lavapipe, probably in the frexp/ldexp of math.glsl's fmod_d.
  b.register_kernel<&div_mode_out>(
      "div.out_mode", (sdk::kFloatingDTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64)) |
                          (sdk::kIntegralDTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BOOL)));
  b.register_kernel<&plain_out<kPow>>("pow.Tensor_Tensor_out", kPowTypes);
  b.register_kernel<&pow_scalar_out>("pow.Tensor_Scalar_out", kPowTypes);
  b.register_kernel<&plain_out<kMax>>("maximum.out", sdk::kAllDTypes);
  b.register_kernel<&plain_out<kMin>>("minimum.out", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
