// max_pool2d over NCHW strided input: an invocation per output element
// (shaders/pool.comp).
#include <algorithm>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

// Mirrors `Push` in shaders/pool.comp.
struct PoolPush {
  uint64_t meta;
  uint64_t x, y;
  int32_t channels, H, W, OH, OW;
  int32_t xs[4], ys[4];
  int32_t k[2], s[2], p[2], d[2];
  uint32_t n;
};

// max_pool2d.out(self, kernel_size, stride, padding, dilation, ceil_mode, *, out)
void max_pool2d_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& self = a.tensor(0);
  const plexus_tensor& out = a.tensor(6);
  const sdk::Pool2dWindow w = sdk::read_max_pool2d_window(a);
  PoolPush p{};
  for (int i = 0; i < 2; ++i) {
    p.k[i] = int32_t(w.kernel[i]);
    p.s[i] = int32_t(w.stride[i]);
    p.p[i] = int32_t(w.padding[i]);
    p.d[i] = int32_t(w.dilation[i]);
  }
  int64_t n = numel(out);
  if (n == 0) return;
  p.x = address_of(self);
  p.y = address_of(out);
  p.channels = int32_t(self.sizes[1]);
  p.H = int32_t(self.sizes[2]);
  p.W = int32_t(self.sizes[3]);
  p.OH = int32_t(out.sizes[2]);
  p.OW = int32_t(out.sizes[3]);
  for (int d = 0; d < 4; ++d) {
    p.xs[d] = int32_t(self.strides[d]);
    p.ys[d] = int32_t(out.strides[d]);
  }
  p.n = uint32_t(n);
  b.device(call.device_index)
      .dispatch(call.stream, module_name("pool", self.dtype).c_str(), {}, &p, sizeof p, nullptr, 0,
                uint32_t(std::min<int64_t>((n + 255) / 256, 4096)));
}

}  // namespace

void register_pool(VulkanBackend& b) {
  b.register_kernel<&max_pool2d_out>("max_pool2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
