// add.out and mul.out for every numeric dtype. The host has broadcast the
// inputs to out's shape (stride 0 where broadcast) and converted them to the
// compute dtype: the kernel only does arithmetic.
#include <cstdint>
#include <type_traits>

#include "kernels.h"

namespace toydev {
namespace {

// Integers wrap like the host's kernels, computed unsigned so overflow is defined.
template <typename T>
T wrap(uint64_t v) {
  return static_cast<T>(v);
}

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void add_out(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::visit_dtype(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = sdk::compute_type_t<T>;  // float for Half and BFloat16
    auto self = b.view<const T>(args.tensor(0));
    auto other = b.view<const T>(args.tensor(1));
    auto out = b.view<T>(args.tensor(3));
    C alpha = args.scalar(2).to<C>();
    if constexpr (std::is_integral_v<T>) {
      auto a = static_cast<uint64_t>(alpha);
      sdk::elementwise(out, self, other, [a](T x, T y) {
        return wrap<T>(static_cast<uint64_t>(x) + a * static_cast<uint64_t>(y));
      });
    } else {
      sdk::elementwise(out, self, other, [alpha](C x, C y) { return x + alpha * y; });
    }
  });
}

// mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
void mul_out(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::visit_dtype(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = sdk::compute_type_t<T>;
    auto self = b.view<const T>(args.tensor(0));
    auto other = b.view<const T>(args.tensor(1));
    auto out = b.view<T>(args.tensor(2));
    if constexpr (std::is_integral_v<T>) {
      sdk::elementwise(out, self, other, [](T x, T y) {
        return wrap<T>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      });
    } else {
      sdk::elementwise(out, self, other, [](C x, C y) { return x * y; });
    }
  });
}

}  // namespace

void register_binary_kernels(ToyBackend& backend) {
  backend.register_kernel<&add_out>("add.out", sdk::kNumericDTypes);
  backend.register_kernel<&mul_out>("mul.out", sdk::kNumericDTypes);
}

}  // namespace toydev
