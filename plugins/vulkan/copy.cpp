// copy_ (any dtype to any dtype, strided, broadcast) and fill_.
#include <algorithm>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

// copy_(self, src, non_blocking): src is broadcast to self's shape, any dtype.
void copy_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& src = args.tensor(1);
  if (self.dtype == src.dtype && self.storage == src.storage && self.offset == src.offset &&
      std::equal(self.strides, self.strides + self.ndim, src.strides))
    return;  // onto itself
  launch_elementwise(b.device(call.device_index), call.stream, "copy", {src.dtype, self.dtype},
                     {&self, &src});
}

// fill_.Scalar(self, value)
void fill_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  ElementwisePush push;
  push.s0 = element_bits(args.scalar(1), self.dtype);
  launch_elementwise(b.device(call.device_index), call.stream, "fill",
                     {int32_t(sdk::dtype_size(self.dtype))}, {&self}, push);
}

}  // namespace

void register_copy(VulkanBackend& b) {
  b.register_kernel<&copy_>("copy_", sdk::kAllDTypes);
  b.register_kernel<&fill_>("fill_.Scalar", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
