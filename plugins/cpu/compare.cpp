// Comparisons eq, ne, lt, le, gt, ge (tensor and scalar forms, bool results)
// and where. Operands arrive in the promoted dtype (call.dtype); a scalar
// other is converted to it first, as PyTorch converts a wrapped number.
#include <functional>

#include "elementwise.h"
#include "kernels.h"

namespace plexus::cpu {
namespace {

// name.Tensor_out(self, other, *, out) with Cmp one of std::equal_to, ...
template <typename Cmp>
void compare_tensor_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map2([](C a, C b) { return Cmp{}(a, b); }, output<bool>(args, 2), input<T>(args, 0),
         input<T>(args, 1));
  });
}

// name.Scalar_out(self, other, *, out)
template <typename Cmp>
void compare_scalar_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C other = static_cast<C>(scalar_to<T>(args.scalar(1)));
    map([other](C a) { return Cmp{}(a, other); }, output<bool>(args, 2), input<T>(args, 0));
  });
}

// where.self_out(condition, self, other, *, out): condition is bool, self and
// other are in call.dtype.
void where_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  auto condition = input<bool>(args, 0);
  visit<sdk::kAllDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using E = elem_t<T>;
    auto self = input<T>(args, 1), other = input<T>(args, 2);
    auto out = output<T>(args, 3);
    if (is_single_value(other) && out.numel() > 0) {  // where(mask, x, 0): keep the loop dense
      E b = other.data()[0];
      map([b](bool c, E a) { return c ? a : b; }, out, condition, self);
    } else {
      map([](bool c, E a, E b) { return c ? a : b; }, out, condition, self, other);
    }
  });
}

template <typename Cmp>
void register_comparison(CpuBackend& b, const char* tensor_op, const char* scalar_op) {
  b.register_kernel<&compare_tensor_out<Cmp>>(tensor_op, sdk::kAllDTypes);
  b.register_kernel<&compare_scalar_out<Cmp>>(scalar_op, sdk::kAllDTypes);
}

}  // namespace

void register_compare(CpuBackend& b) {
  register_comparison<std::equal_to<>>(b, "eq.Tensor_out", "eq.Scalar_out");
  register_comparison<std::not_equal_to<>>(b, "ne.Tensor_out", "ne.Scalar_out");
  register_comparison<std::less<>>(b, "lt.Tensor_out", "lt.Scalar_out");
  register_comparison<std::less_equal<>>(b, "le.Tensor_out", "le.Scalar_out");
  register_comparison<std::greater<>>(b, "gt.Tensor_out", "gt.Scalar_out");
  register_comparison<std::greater_equal<>>(b, "ge.Tensor_out", "ge.Scalar_out");
  b.register_kernel<&where_out>("where.self_out", sdk::kAllDTypes);
}

}  // namespace plexus::cpu
