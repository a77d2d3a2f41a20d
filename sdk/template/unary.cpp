// neg.out for every numeric dtype; integers wrap (-INT_MIN == INT_MIN).
#include <cstdint>
#include <type_traits>

#include "kernels.h"

namespace toydev {
namespace {

// neg.out(Tensor self, *, Tensor(a!) out)
void neg_out(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  sdk::visit_dtype(call.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = sdk::compute_type_t<T>;
    auto self = b.view<const T>(args.tensor(0));
    auto out = b.view<T>(args.tensor(1));
    if constexpr (std::is_integral_v<T>)
      sdk::elementwise(out, self, [](T x) { return static_cast<T>(0 - static_cast<uint64_t>(x)); });
    else
      sdk::elementwise(out, self, [](C x) { return -x; });
  });
}

}  // namespace

void register_unary_kernels(ToyBackend& backend) {
  backend.register_kernel<&neg_out>("neg.out", sdk::kNumericDTypes);
}

}  // namespace toydev
