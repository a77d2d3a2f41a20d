// copy_ (any dtype to any dtype, strided, broadcast) and fill_.
#include <algorithm>
#include <climits>
#include <vector>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

// Mirrors `Push` in shaders/copy_gather.comp.
struct GatherPush {
  uint64_t first;
  int32_t sizes[3];
  int32_t strides[3];
};
static_assert(sizeof(GatherPush) == 32);

// copy_ between two tensors of one dtype when the packed path applies:
// both contiguous (and not overlapping) is one vkCmdCopyBuffer; a contiguous self of 4-byte
// elements starting on 16 bytes from any strided src whose last collapsed
// dim is a multiple of 4 (at most 3 collapsed dims, each <= 65535 but the
// last) is shaders/copy_gather.comp. Returns false, recording nothing, otherwise.
bool copy_packed(Device& dev, void* stream, const plexus_tensor& self, const plexus_tensor& src) {
  if (self.dtype != src.dtype || !dev.info().packed || !self.storage || !src.storage ||
      !is_contiguous(self))
    return false;
  const int64_t n = numel(self);
  const size_t es = sdk::dtype_size(self.dtype);
  auto* out = static_cast<const Allocation*>(self.storage);
  auto* in = static_cast<const Allocation*>(src.storage);
  const bool overlap =
      self.storage == src.storage && self.offset < src.offset + n && src.offset < self.offset + n;
  if (is_contiguous(src) && !overlap) {  // vkCmdCopyBuffer regions must not overlap
    dev.copy_on_device(stream, const_cast<Allocation*>(out), size_t(self.offset) * es,
                       const_cast<Allocation*>(in), size_t(src.offset) * es, size_t(n) * es);
    return true;
  }
  if (es != 4 || block_offset(self) % 16 != 0 || n < 4) return false;
  // src's dims collapsed (plexus/sdk/layout.hpp; self is contiguous, so src's
  // strides alone decide), padded in front to 3.
  sdk::CollapsedDims<1, 3> c;
  if (!sdk::collapse_dims(self.ndim, self.sizes, {src.strides}, c)) return false;
  int64_t sizes[3] = {1, 1, 1}, strides[3] = {0, 0, 0};
  for (int32_t d = 0; d < c.ndim; ++d) {
    sizes[3 - c.ndim + d] = c.sizes[d];
    strides[3 - c.ndim + d] = c.strides[0][d];
  }
  if (sizes[2] % 4 != 0 || sizes[2] > INT32_MAX || n * 4 > int64_t(dev.info().max_storage_range))
    return false;
  if (sizes[0] > 65535 || sizes[1] > 65535) return false;
  GatherPush p{};
  for (int i = 0; i < 3; ++i) {
    if (strides[i] > INT32_MAX) return false;
    p.sizes[i] = int32_t(sizes[i]);
    p.strides[i] = int32_t(strides[i]);
  }
  VkBufferView view = dev.texel_view(in, false);
  if (!view) return false;
  p.first = block_offset(src) / 4;
  dev.dispatch_packed(stream, "copy_gather", {}, &p, sizeof p, out, VkDeviceSize(self.offset) * 4,
                      VkDeviceSize(n) * 4, {view}, uint32_t((sizes[2] / 4 + 63) / 64),
                      uint32_t(sizes[1]), uint32_t(sizes[0]));
  return true;
}

// copy_(self, src, non_blocking): src is broadcast to self's shape, any dtype.
void copy_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  const plexus_tensor& src = args.tensor(1);
  if (self.dtype == src.dtype && self.storage == src.storage && self.offset == src.offset &&
      std::equal(self.strides, self.strides + self.ndim, src.strides))
    return;  // onto itself
  if (copy_packed(b.device(call.device_index), call.stream, self, src)) return;
  launch_elementwise(b.device(call.device_index), call.stream, "copy", {src.dtype, self.dtype},
                     {&self, &src});
}

// fill_.Scalar(self, value)
void fill_(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const plexus_tensor& self = args.tensor(0);
  ElementwisePush push;
  push.s0 = element_bits(args.scalar(1), self.dtype);
  launch_elementwise(b.device(call.device_index), call.stream, "copy_fill",
                     {int32_t(sdk::dtype_size(self.dtype))}, {&self}, push);
}

}  // namespace

void register_copy(VulkanBackend& b) {
  b.register_kernel<&copy_>("copy_", sdk::kAllDTypes);
  b.register_kernel<&fill_>("fill_.Scalar", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
