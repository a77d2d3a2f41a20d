// fill_.Scalar for every dtype but bool, and copy_ for every dtype. copy_
// converts between dtypes and layouts on one device; copies between devices
// never reach it (the host moves those bytes with the backend's copy functions).
#include "kernels.h"

namespace toydev {
namespace {

// fill_.Scalar(Tensor(a!) self, Scalar value)
void fill_scalar(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  sdk::visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value = args.scalar(1).to<T>();
    sdk::for_each(b.view<T>(self), [value](T& x) { x = value; });
  });
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False): src has self's
// shape (broadcast) but may have another dtype.
void copy(ToyBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& src = args.tensor(1);
  sdk::visit_dtype(self.dtype, [&](auto to) {
    using To = typename decltype(to)::type;
    sdk::visit_dtype(src.dtype, [&](auto from) {
      using From = typename decltype(from)::type;
      sdk::elementwise(b.view<To>(self), b.view<const From>(src),
                       [](From x) { return sdk::convert<To>(x); });
    });
  });
}

}  // namespace

void register_copy_kernels(ToyBackend& backend) {
  // Left out on purpose: filling a bool tensor shows the host's cpu fallback
  // for a dtype a kernel does not cover.
  backend.register_kernel<&fill_scalar>("fill_.Scalar",
                                        sdk::kAllDTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_BOOL));
  backend.register_kernel<&copy>("copy_", sdk::kAllDTypes);
}

}  // namespace toydev
