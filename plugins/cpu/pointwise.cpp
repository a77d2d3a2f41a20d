// Fused pointwise ops of three operands: lerp, addcmul, addcdiv, each one
// pass over memory. float16 and bfloat16 compute in float; integers wrap.
#include <cmath>

#include "elementwise.h"
#include "kernels.h"

namespace plexus::cpu {
namespace {

// lerp.Scalar_out(self, end, weight, *, out): self + weight * (end - self),
// computed from the end nearer to weight, as PyTorch does, for accuracy.
void lerp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C w = scalar_to<C>(args.scalar(2));
    auto out = output<T>(args, 3);
    if (std::abs(w) < C(0.5))
      map2([w](C a, C b) { return a + w * (b - a); }, out, input<T>(args, 0), input<T>(args, 1));
    else
      map2([w](C a, C b) { return b - (b - a) * (C(1) - w); }, out, input<T>(args, 0),
           input<T>(args, 1));
  });
}

// addcmul.out(self, tensor1, tensor2, *, value, out): self + value * tensor1 * tensor2.
void addcmul_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C v = scalar_to<C>(args.scalar(3));
    auto out = output<T>(args, 4);
    auto self = input<T>(args, 0), t1 = input<T>(args, 1), t2 = input<T>(args, 2);
    if constexpr (std::is_integral_v<T>)
      map([v](T s, T a, T b) { return wrapping_add(s, wrapping_mul(wrapping_mul(v, a), b)); }, out,
          self, t1, t2);
    else
      map([v](C s, C a, C b) { return s + v * a * b; }, out, self, t1, t2);
  });
}

// addcdiv.out(self, tensor1, tensor2, *, value, out): self + value * tensor1 / tensor2.
void addcdiv_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C v = scalar_to<C>(args.scalar(3));
    map([v](C s, C a, C b) { return s + v * a / b; }, output<T>(args, 4), input<T>(args, 0),
        input<T>(args, 1), input<T>(args, 2));
  });
}

}  // namespace

void register_pointwise(CpuBackend& b) {
  b.register_kernel<&lerp_out>("lerp.Scalar_out", sdk::kFloatingDTypes);
  b.register_kernel<&addcmul_out>("addcmul.out", sdk::kNumericDTypes);
  b.register_kernel<&addcdiv_out>("addcdiv.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
